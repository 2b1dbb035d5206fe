"""Verifying a match log: replay it through ``evolve`` and, where commands were recorded, ``decide`` again.

With the match seed (a log file's header) the set-up events are re-created with ``setup`` and every
recorded command is decided again at its version with the same rng (:func:`derive_rng`); the events it
gives must equal the logged ones (type, body, visibility, redacted body). Without the seed only the
sequence and ``evolve`` can be checked, and the report says so. The first difference is named by version.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from schemas.clock import CLOCK_EVENTS
from schemas.envelopes import EventEnvelope
from services.games.base import Command, Event, Game
from services.games.clock import clocked, decide_match, match_game
from services.games.errors import Rejected
from services.games.rng import derive_rng
from services.pipeline.states import to_event
from services.replay.files import MatchLog
from services.replay.stepper import ReplayError, sequence_problem


@dataclass(frozen=True, slots=True)
class Mismatch:
    version: int
    reason: str


@dataclass
class VerifyReport:
    events: int = 0
    setup_checked: bool = False
    commands_decided: int = 0
    events_decided: int = 0
    unchecked: int = 0
    notes: list[str] = field(default_factory=list)
    mismatch: Mismatch | None = None

    @property
    def ok(self) -> bool:
        return self.mismatch is None

    def summary(self) -> str:
        lines = [f"FAILED at version {self.mismatch.version}: {self.mismatch.reason}"] if self.mismatch else []
        setup = "re-created" if self.setup_checked else "not re-created"
        replayed = f"{self.events} events" if self.mismatch is None else \
            f"{self.mismatch.version - 1} of {self.events} events"
        checked = (f"{replayed} replayed through evolve; set-up {setup}; "
                   f"{self.commands_decided} commands decided again ({self.events_decided} events compared)")
        if self.unchecked:
            checked += f"; {self.unchecked} events without a recorded command checked by evolve only"
        lines.append(checked)
        lines += self.notes
        if self.mismatch is None:
            lines.append("OK: no difference found")
        return "\n".join(lines)


def _plain(value: Any) -> Any:
    """JSON-like normal form (tuples as lists, map keys as text) so stored and fresh events compare."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def difference(logged: EventEnvelope, fresh: Event) -> str | None:
    """What differs between a logged event and the event ``setup``/``decide`` gives now, or None."""
    fields: list[tuple[str, Any, Any]] = [
        ("type", logged.type, fresh.type),
        ("body", logged.body, fresh.body),
        ("visible_to", logged.visible_to, list(fresh.visible_to) if fresh.visible_to is not None else None),
        ("redacted", logged.redacted, fresh.redacted),
    ]
    for name, have, want in fields:
        if _plain(have) != _plain(want):
            return f"{logged.type} {name} differs: the log has {have!r}, replaying gives {want!r}"
    return None


def verify(log: MatchLog, game: Game[Any] | None = None) -> VerifyReport:
    if game is None:
        if log.game is None:
            raise ReplayError("cannot tell the game: no match header and no MatchStarted event")
        try:
            game = match_game(log.game)
        except Rejected as e:
            raise ReplayError(e.reason) from e
    report = VerifyReport(events=len(log.events))
    problem = sequence_problem(log.events)
    if problem is not None:
        report.mismatch = Mismatch(*problem)
        return report
    seed = log.meta.seed if log.meta is not None else None
    if seed is None:
        report.notes.append("no match header, so no seed: set-up and commands were not decided again; "
                            "only the sequence and evolve were checked")
    _Checker(clocked(game), log, seed, report).run()
    return report


class _Checker:
    def __init__(self, game: Game[Any], log: MatchLog, seed: int | None, report: VerifyReport) -> None:
        self.game = game
        self.log = log
        self.seed = seed
        self.report = report
        self.pending: list[Event] = []  # events the current command should still produce
        self.command_id: str | None = None

    def fail(self, version: int, reason: str) -> None:
        self.report.mismatch = Mismatch(version, reason)

    def run(self) -> None:
        events = self.log.events
        setup_len = self._setup_events()
        if self.report.mismatch:
            return
        state = self.game.initial()
        for index, envelope in enumerate(events):
            version = index + 1
            if version > setup_len and not self._check_event(state, envelope, version):
                return
            try:
                state = self.game.evolve(state, to_event(envelope))
            except Exception as e:  # a rules bug or a corrupt log: either way this version is wrong
                return self.fail(version, f"evolve failed on {envelope.type}: {e!r}")
        if self.pending:
            return self.fail(len(events) + 1, f"the log ends, but command {self.command_id} should also give "
                                              f"{', '.join(e.type for e in self.pending)}")
        meta = self.log.meta
        if meta is not None and meta.status == "finished" and self.game.outcome(state) is None:
            self.fail(len(events) + 1, "the header says the match finished, but the replayed match has not ended")

    def _setup_events(self) -> int:
        """Re-create the set-up events when the seed is known; returns how many there are."""
        events = self.log.events
        meta = self.log.meta
        if self.seed is None or meta is None:
            return 0
        try:
            fresh = self.game.setup(meta.options, meta.seats, derive_rng(self.seed, 0))
        except Rejected as e:
            self.fail(1, f"setup refuses the header's options: {e.reason}")
            return 0
        for index, want in enumerate(fresh):
            if index >= len(events):
                self.fail(index + 1, f"the log ends inside the set-up; expected {want.type}")
                return 0
            logged = events[index]
            diff = difference(logged, want)
            if diff is None and logged.command_id is not None:
                diff = f"set-up event {logged.type} claims to come from command {logged.command_id}"
            if diff is not None:
                self.fail(index + 1, diff)
                return 0
        self.report.setup_checked = True
        return len(fresh)

    def _check_event(self, state: Any, envelope: EventEnvelope, version: int) -> bool:
        if envelope.command is not None and self.seed is not None:
            if self.pending:
                self.fail(version, f"expected {self.pending[0].type} of command {self.command_id}, found the next "
                                   f"command's {envelope.type}")
                return False
            if not self._decide(state, envelope, version, self.seed):
                return False
        if self.pending:
            if envelope.command_id != self.command_id:
                self.fail(version, f"expected {self.pending[0].type} of command {self.command_id}, found an event of "
                                   f"{envelope.command_id or 'no command'}")
                return False
            diff = difference(envelope, self.pending.pop(0))
            if diff is not None:
                self.fail(version, diff)
                return False
            self.report.events_decided += 1
            return True
        if self.seed is not None and envelope.command_id is not None and envelope.command_id == self.command_id:
            self.fail(version, f"command {self.command_id} gives fewer events when decided again; "
                               f"{envelope.type} is extra")
            return False
        self.report.unchecked += 1
        return True

    def _decided_at(self, version: int) -> int | None:
        """When the command whose first event is at ``version`` was decided: a clocked match's commands end in a
        clock event that records it (``schemas.clock``); None for any other."""
        events = self.log.events
        command_id = events[version - 1].command_id
        for envelope in events[version - 1:]:
            if envelope.command_id != command_id:
                break
            if envelope.type in CLOCK_EVENTS and isinstance(envelope.body.get("at_ms"), int):
                return int(envelope.body["at_ms"])
        return None

    def _decide(self, state: Any, envelope: EventEnvelope, version: int, seed: int) -> bool:
        recorded = envelope.command or {}
        if envelope.seat is None:
            self.fail(version, "a recorded command without the seat that sent it")
            return False
        command = Command(envelope.seat, str(recorded.get("type", "")), dict(recorded.get("body") or {}))
        try:
            fresh = decide_match(self.game, state, command, derive_rng(seed, version - 1), self._decided_at(version))
        except Rejected as e:
            self.fail(version, f"command '{command.describe()}' of seat {command.seat} is rejected when decided "
                               f"again: {e.reason}")
            return False
        except Exception as e:  # a rules bug: report it against the version rather than crash the tool
            self.fail(version, f"decide failed on '{command.describe()}': {e!r}")
            return False
        if not fresh:
            self.fail(version, f"command '{command.describe()}' gives no events when decided again")
            return False
        self.pending = list(fresh)
        self.command_id = envelope.command_id
        self.report.commands_decided += 1
        return True
