"""Stepping through a match: the state, views and board text at any version, and the interactive mode.

States are rebuilt with the game's ``evolve`` only (a replay needs no seed) and kept at checkpoints, so
stepping back and jumping around cost at most a checkpoint interval of ``evolve`` calls.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TextIO

from schemas.envelopes import EventEnvelope, MatchMeta, ViewRecord
from services.games.abandon import abandon_rule
from services.games.base import Game
from services.games.clock import clocked, match_game
from services.games.errors import Rejected
from services.pipeline.projector import build_views
from services.pipeline.states import Loaded, to_event
from services.replay.files import MatchLog
from services.replay.render import describe_event, render_board

CHECKPOINT_EVERY = 64


class ReplayError(ValueError):
    """The log cannot be replayed (unknown game, gap in the versions, ``evolve`` failing)."""


def sequence_problem(events: list[EventEnvelope]) -> tuple[int, str] | None:
    """(version, what) for the first event out of place (versions must run 1..n, one match id)."""
    for index, envelope in enumerate(events):
        expected = index + 1
        if envelope.version != expected:
            return expected, f"expected version {expected}, found {envelope.version}"
        if envelope.match_id != events[0].match_id:
            return expected, f"event of match '{envelope.match_id}' in the log of '{events[0].match_id}'"
    return None


class Replay:
    """A match log made explorable. Version 0 is the state before the first event."""

    def __init__(self, log: MatchLog, game: Game[Any] | None = None) -> None:
        if game is None:
            if log.game is None:
                raise ReplayError("cannot tell the game: no match header and no MatchStarted event")
            try:
                game = match_game(log.game)
            except Rejected as e:
                raise ReplayError(e.reason) from e
        problem = sequence_problem(log.events)
        if problem is not None:
            raise ReplayError(f"version {problem[0]}: {problem[1]}")
        self.log = log
        self.game = game = clocked(game)  # the match layer: a clocked match's log holds the clock's events
        self._checkpoints: dict[int, Any] = {0: game.initial()}

    @property
    def last(self) -> int:
        return len(self.log.events)

    @property
    def seats(self) -> int:
        seats = self.log.seats
        if seats is None:
            raise ReplayError("cannot tell the number of seats: no match header and no MatchStarted event")
        return seats

    def event(self, version: int) -> EventEnvelope:
        self._check(version, lowest=1)
        return self.log.events[version - 1]

    def state_at(self, version: int) -> Any:
        self._check(version)
        start = max(v for v in self._checkpoints if v <= version)
        state = self._checkpoints[start]
        for v in range(start + 1, version + 1):
            try:
                state = self.game.evolve(state, to_event(self.log.events[v - 1]))
            except Exception as e:  # a rules bug or a corrupt log; name the version either way
                raise ReplayError(f"version {v}: evolve failed: {e!r}") from e
            if v % CHECKPOINT_EVERY == 0:
                self._checkpoints[v] = state
        return state

    def view_at(self, version: int, seat: int | None = None) -> dict[str, Any]:
        return self.game.view(self.state_at(version), seat)

    def records_at(self, version: int | None = None) -> list[ViewRecord]:
        """The view records the projector builds at ``version`` (default: the last)."""
        version = self.last if version is None else version
        match_id = self.log.match_id or "replay"
        meta = self.log.meta or MatchMeta(match_id=match_id, game=self.game.name, seats=self.seats, seed=0)
        last = self.log.events[version - 1] if 0 < version <= len(self.log.events) else None
        rule = abandon_rule(last.type, last.body) if last is not None else None
        return build_views(Loaded(self.game, meta, version, self.state_at(version), abandon_rule=rule))

    def render_step(self, version: int, seat: int | None = None) -> str:
        """The event at ``version`` as ``seat`` may see it, who caused it, and the board after it."""
        self._check(version)
        title = f"== version {version} of {self.last}" + (f" (seat {seat}'s view)" if seat is not None else "")
        event_line = describe_event(self.event(version), seat) if version else "(before the first event)"
        board = render_board(self.game.name, self.view_at(version, seat))
        return f"{title} ==\n{event_line}\n{board}"

    def _check(self, version: int, lowest: int = 0) -> None:
        if not lowest <= version <= self.last:
            raise ReplayError(f"version {version} is outside {lowest}..{self.last}")


HELP = "n/next (or Enter), p/prev, g V / goto V, f/first, l/last, q/quit, h/help"


def interact(replay: Replay, inp: TextIO, out: TextIO, seat: int | None = None, start: int = 1) -> int:
    """Step through ``replay`` driven by lines from ``inp``; returns the version it stopped at."""
    version = min(max(start, 0), replay.last)

    def show() -> None:
        out.write(replay.render_step(version, seat) + "\n")

    moves: dict[str, Callable[[int], int]] = {
        "n": lambda v: v + 1, "next": lambda v: v + 1, "": lambda v: v + 1,
        "p": lambda v: v - 1, "prev": lambda v: v - 1,
        "f": lambda v: 0, "first": lambda v: 0,
        "l": lambda v: replay.last, "last": lambda v: replay.last,
    }
    show()
    while True:
        out.write(f"[{version}/{replay.last}] {HELP}> ")
        out.flush()
        line = inp.readline()
        if not line:
            out.write("\n")
            return version
        words = line.strip().lower().split()
        word = words[0] if words else ""
        if word in ("q", "quit", "exit"):
            return version
        if word in ("h", "help", "?"):
            out.write(HELP + "\n")
            continue
        if word in ("g", "goto"):
            if len(words) != 2 or not (words[1].isascii() and words[1].isdigit()):
                out.write("goto needs a version number, e.g. 'g 12'\n")
                continue
            target = int(words[1])
        elif word.isascii() and word.isdigit():
            target = int(word)
        elif word in moves:
            target = moves[word](version)
        else:
            out.write(f"unknown key '{word}'; {HELP}\n")
            continue
        if not 0 <= target <= replay.last:
            out.write(f"no version {target}; this match has 0..{replay.last}\n")
            continue
        version = target
        show()
