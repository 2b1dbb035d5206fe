"""The direct client: the trusted, in-service client library for bots, tools and tests that talk to the backend
itself (the embedded in-process one, or Redis with a service user), not through the gateway: create and join
matches, send commands and await their results, read and subscribe to views. (Players' clients use the gateway:
:mod:`services.client`, ``GatewayClient``. Both follow :class:`services.client.protocol.GameClient`.)

Against Redis every call is a network round trip and waits block on the streams. Against the
in-process backend a ``pump`` callable (running the worker and projector once) is called while
waiting, so a whole match runs in one thread, deterministically.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from schemas.clock import TimeControl
from schemas.codec import pack
from schemas.envelopes import CommandEnvelope, CommandResult, MatchMeta, ViewRecord
from schemas.gateway import LogAnswer, MatchSummary
from services.games.errors import BadOptions, Rejected, Unauthorized
from services.pipeline import lobby
from services.pipeline.auth import seat_authorized
from services.pipeline.ports import Backend

Pump = Callable[[], None]


class Timeout(Exception):
    """Nothing arrived in time (the worker or projector may be down)."""


class DirectClient:
    def __init__(self, backend: Backend, pump: Pump | None = None, poll_ms: int = 200) -> None:
        self.backend = backend
        self._pump = pump
        self._poll_ms = poll_ms

    def _wait_block_ms(self) -> int:
        if self._pump is not None:
            self._pump()
            return 0
        return self._poll_ms

    # -- lobby -----------------------------------------------------------------------------------
    def create_match(self, game: str, seats: int, options: Mapping[str, Any] | None = None,
                     seed: int | None = None, match_id: str | None = None,
                     clock: Mapping[str, Any] | None = None) -> MatchMeta:
        """``clock``: the match's time control (``schemas.clock.TimeControl`` fields; #29)."""
        control = TimeControl.model_validate(clock) if clock is not None else None
        return lobby.create_match(self.backend.store, game, seats, options, seed, match_id,
                                  clock=control if control is not None and control.clocked else None)

    def join(self, match_id: str, seat: int | None = None) -> tuple[int, str]:
        return lobby.join(self.backend.store, match_id, seat)

    def matches(self, status: str | None = None) -> list[MatchMeta]:
        return self.backend.store.list_matches(status)

    def match(self, match_id: str) -> MatchSummary:
        """The match's summary as the gateway gives it (status, free seats, version); raises
        :class:`~services.games.errors.BadOptions` for an unknown match."""
        meta = self.backend.store.meta(match_id)
        if meta is None:
            raise BadOptions(f"no match '{match_id}'")
        return MatchSummary(match_id=meta.match_id, game=meta.game, seats=meta.seats,
                            seats_free=[s for s in range(meta.seats) if s not in meta.credential_hashes],
                            status=meta.status, options=meta.options, version=self.backend.store.version(match_id),
                            clock=meta.clock)

    def log(self, match_id: str, token: str | None = None, after_version: int = 0) -> LogAnswer:
        """The events after ``after_version``, whole (this client is trusted; ``token`` is not needed, and
        callers show each event as their seat may see it)."""
        meta = self.backend.store.meta(match_id)
        if meta is None:
            raise BadOptions(f"no match '{match_id}'")
        return LogAnswer(match_id=match_id, game=meta.game, perspective="full",
                         events=self.backend.store.read_log(match_id, after=after_version))

    # -- commands --------------------------------------------------------------------------------
    def send(self, match_id: str, seat: int, credential: str | None, type: str, body: Mapping[str, Any],
             command_id: str | None = None, expected_version: int | None = None) -> str:
        """Check the seat credential here (this client is trusted: it writes the command stream itself, as
        the gateway does) and publish the envelope, which carries no credential. Raises
        :class:`~services.games.errors.Unauthorized` for a wrong credential; nothing is published then."""
        meta = self.backend.store.meta(match_id)
        if meta is None or not seat_authorized(meta, seat, credential):
            raise Unauthorized("wrong or missing seat credential")
        command_id = command_id or uuid.uuid4().hex
        envelope = CommandEnvelope(command_id=command_id, match_id=match_id, seat=seat, type=type,
                                   body=dict(body), expected_version=expected_version)
        self.backend.bus.publish(match_id, pack(envelope))
        return command_id

    def send_raw(self, match_id: str, data: bytes) -> str:
        """Publish bytes as they are (for tools and tests of bad input)."""
        return self.backend.bus.publish(match_id, data)

    def wait_result(self, match_id: str, command_id: str, timeout_s: float = 30.0,
                    after: str | None = None) -> CommandResult:
        """The command's result once recorded. ``after``: a results position taken before the command was
        sent (see :meth:`call`); its result then arrives in what follows, which saves look-ups."""
        deadline = time.monotonic() + timeout_s
        position = after
        look = after is None
        while True:
            if look:
                found = self.backend.store.result(match_id, command_id)
                if found is not None:
                    return found
            if time.monotonic() > deadline:
                raise Timeout(f"no result for command {command_id} within {timeout_s}s")
            if position is None:  # look again once the position is known: a result after it wakes the read
                position = self.backend.store.results_end(match_id)
                continue
            block = self._wait_block_ms()
            news = self.backend.store.read_results(match_id, position, block) if block else []
            for _, result in news:
                if result.command_id == command_id:
                    return result
            position = news[-1][0] if news else position
            look = not news  # nothing in a whole wait (or trimmed away): ask the record itself

    def call(self, match_id: str, seat: int, credential: str | None, type: str, body: Mapping[str, Any],
             timeout_s: float = 30.0, command_id: str | None = None,
             expected_version: int | None = None) -> CommandResult:
        """Send a command and wait for its result."""
        position = self.backend.store.results_end(match_id)
        try:
            command_id = self.send(match_id, seat, credential, type, body, command_id, expected_version)
        except Rejected as err:
            return CommandResult(command_id=command_id or "-", match_id=match_id, seat=seat, status="rejected",
                                 version=self.backend.store.version(match_id), code=err.code, reason=err.reason)
        return self.wait_result(match_id, command_id, timeout_s, after=position)

    # -- views -----------------------------------------------------------------------------------
    def view(self, match_id: str, key: str | int = "public", token: str | None = None) -> ViewRecord | None:
        """The view record (``token``: accepted as on the gateway client; this trusted client needs none)."""
        return self.backend.views.get_view(match_id, str(key))

    def wait_view(self, match_id: str, key: str | int = "public", min_version: int = 0,
                  timeout_s: float = 30.0, token: str | None = None) -> ViewRecord:
        """The view once it reflects at least ``min_version``."""
        deadline = time.monotonic() + timeout_s
        position: str | None = None
        while True:
            record = self.view(match_id, key)
            if record is not None and record.version >= min_version:
                return record
            if time.monotonic() > deadline:
                raise Timeout(f"view {key} of {match_id} did not reach version {min_version} in {timeout_s}s")
            if position is None:  # as in wait_result: never read a whole announcement stream
                position = self.backend.views.updates_end(match_id)
                continue
            block = self._wait_block_ms()
            if block:
                updates = self.backend.views.read_updates(match_id, position, block)
                position = updates[-1][0] if updates else position

    def subscribe(self, match_id: str, key: str | int = "public", after_version: int = 0,
                  timeout_s: float | None = None, token: str | None = None) -> Iterator[ViewRecord]:
        """Every new version of a view after ``after_version``, in order, each once; stops at the match end
        (after yielding the final view) or when nothing arrives within ``timeout_s``."""
        seen = after_version
        while True:
            record = self.wait_view(match_id, key, seen + 1, timeout_s if timeout_s is not None else 3600.0)
            seen = record.version
            yield record
            if record.finished:
                return
