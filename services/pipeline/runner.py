"""Play a complete match among bots through the whole pipeline.

The runner is a referee, not a shortcut: it creates the match and joins every seat through the lobby,
then asks the bot of the seat that must act (lowest seat first when several must) for a command, given
only that seat's view record, sends it as a command envelope and waits for the worker's result and the
projector's new views. So the same seed gives the same match on every backend.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from schemas.envelopes import MatchMeta
from schemas.gateway import MatchSummary
from services.bots.base import Bot
from services.client.protocol import GameClient
from services.pipeline.client import Client
from services.pipeline.memory import MemoryBackend
from services.pipeline.projector import Projector
from services.pipeline.worker import Worker

Progress = Callable[[int, int, float], None]


@dataclass
class MatchReport:
    meta: MatchMeta | MatchSummary  # a summary when played through the gateway (which keeps the seed)
    version: int
    commands: int
    rejected: int
    seconds: float
    outcome: dict[str, Any]
    final_view: dict[str, Any] = field(default_factory=dict)


class InProcess:
    """The embedded backend with one worker and one projector, driven by ``pump``."""

    def __init__(self, partitions: int = 16) -> None:
        self.backend = MemoryBackend(partitions)
        self.worker = Worker(self.backend.bus, self.backend.store, "embedded-worker")
        self.projector = Projector(self.backend.store, self.backend.views, "embedded-projector")

    def pump(self) -> None:
        """Run the worker and the projector until neither has anything left to do."""
        while self.worker.run_once(block_ms=0) + self.projector.run_once(block_ms=0):
            pass

    def client(self) -> Client:
        return Client(self.backend, pump=self.pump)


def play_match(
    client: GameClient,
    game: str,
    seats: int,
    bots: Sequence[Bot],
    options: Mapping[str, Any] | None = None,
    seed: int | None = None,
    match_id: str | None = None,
    progress: Progress | None = None,
    max_commands: int = 100_000,
    timeout_s: float = 30.0,
) -> MatchReport:
    started = time.monotonic()
    meta = client.create_match(game, seats, options, seed=seed, match_id=match_id)
    credentials = {}
    for seat in range(seats):
        joined, credential = client.join(meta.match_id, seat)
        credentials[joined] = credential
    public = client.wait_view(meta.match_id, "public", client.match(meta.match_id).version, timeout_s)
    commands = rejected = 0
    while not public.view.get("finished"):
        if commands >= max_commands:
            raise RuntimeError(f"match {meta.match_id} did not end after {max_commands} commands")
        seat = min(public.view["to_act"])
        record = client.wait_view(meta.match_id, seat, public.version, timeout_s, token=credentials[seat])
        choice = bots[seat].choose(record.view, record.legal)
        result = client.call(meta.match_id, seat, credentials[seat], choice["type"], choice.get("body", {}),
                             timeout_s)
        commands += 1
        if result.status == "rejected":
            rejected += 1
            if rejected > 100:
                raise RuntimeError(f"bots keep being rejected: {result.reason}")
        public = client.wait_view(meta.match_id, "public", result.version, timeout_s)
        if progress:
            progress(commands, public.version, time.monotonic() - started)
    return MatchReport(meta=meta, version=public.version, commands=commands, rejected=rejected,
                       seconds=time.monotonic() - started, outcome=public.view.get("outcome") or {},
                       final_view=public.view)


class ProgressLine:
    """A progress line on a terminal (rewritten in place), or a line every few seconds elsewhere."""

    def __init__(self, label: str, out: TextIO = sys.stderr, every_s: float = 2.0) -> None:
        self.label = label
        self.out = out
        self.tty = out.isatty()
        self.every_s = every_s if not self.tty else 0.1
        self._last = 0.0

    def __call__(self, commands: int, version: int, elapsed_s: float) -> None:
        now = time.monotonic()
        if now - self._last < self.every_s:
            return
        self._last = now
        rate = commands / elapsed_s if elapsed_s > 0 else 0.0
        text = f"{self.label}: {commands} commands, version {version}, {rate:,.0f} commands/s"
        self.out.write(f"\r{text}" if self.tty else f"{text}\n")
        self.out.flush()

    def done(self) -> None:
        if self.tty:
            self.out.write("\n")
            self.out.flush()
