"""Play a complete match among bots through the whole pipeline.

The runner is a referee, not a shortcut: it creates the match and joins every seat through the lobby,
then asks the runner of the seat that must act (lowest seat first when several must) to answer that
seat's view record (:class:`services.bots.sdk.SeatRunner`, the one bot driver: the bot sees only the
seat's view and legal choices), and waits for the worker's result and the projector's new views.
So the same seed gives the same match on every backend.
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
from services.bots.sdk import SeatRunner
from services.client.protocol import GameClient

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
    runners = {seat: SeatRunner(client, meta.match_id, seat, credential, bots[seat], timeout_s)
               for seat, credential in credentials.items()}
    public = client.wait_view(meta.match_id, "public", client.match(meta.match_id).version, timeout_s)
    commands = rejected = 0
    while not public.finished:
        if commands >= max_commands:
            raise RuntimeError(f"match {meta.match_id} did not end after {max_commands} commands")
        seat = min(public.to_act)
        record = client.wait_view(meta.match_id, seat, public.version, timeout_s, token=credentials[seat])
        result = runners[seat].answer(record)
        commands += 1
        rejected += result.status == "rejected"
        public = client.wait_view(meta.match_id, "public", result.version, timeout_s)
        if progress:
            progress(commands, public.version, time.monotonic() - started)
    return MatchReport(meta=meta, version=public.version, commands=commands, rejected=rejected,
                       seconds=time.monotonic() - started, outcome=public.outcome or {},
                       final_view=public.view)


class StatusLine:
    """One line of progress: rewritten in place on a terminal, a new line each time elsewhere."""

    out: TextIO
    tty: bool

    def show(self, text: str) -> None:
        self.out.write(f"\r{text}" if self.tty else f"{text}\n")
        self.out.flush()

    def done(self) -> None:
        if self.tty:
            self.out.write("\n")
            self.out.flush()


class ProgressLine(StatusLine):
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
        self.show(f"{self.label}: {commands} commands, version {version}, {rate:,.0f} commands/s")
