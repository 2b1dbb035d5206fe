"""The match layer over a game: turn clocks (#29), the same for every game through the one contract.

:func:`match_game` wraps a game (:class:`ClockedGame`) so that its state is a :class:`MatchState`: the game's own
state, plus the match's :class:`Clock` folded from the service's clock events (``schemas.clock``), which the game
never sees. Everything that folds a match's log (workers, projectors, replay, verify, the ladder) uses the
wrapper; bots and the rules' own tests use the bare game.

Time is never read here: a worker passes the time it decides a command at (:func:`decide_match`), the events
carry it, and ``evolve`` only copies it. So a replay of the log gives each seat's clock at every version.

- A clocked match's log has ``ClockSet`` after its set-up, ``ClockStarted`` when its last seat is taken, and
  ``MoveTimed`` after the events of every command decided once it runs: the time since each seat came to act is
  charged (a bank loses it; the seat that acted gains the increment), and the seats now to act are on the clock.
- A deadline that passes is the system command ``match.timeout`` (:data:`schemas.clock.TIMEOUT_COMMAND`): in a
  move clock the service's heuristic bot decides for the seat (``TimedOut``, the move's events, ``MoveTimed``
  with ``stand_in``), and the ``timeouts``-th in a row forfeits; in a bank clock an empty bank forfeits.
- ``Forfeited`` ends the match in every game: the seat places last and the others share the win (none of the
  three games can go on with a seat fewer; docs/game-contract.md says why per game).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from pydantic import BaseModel, ValidationError

from schemas.clock import (
    CLOCK_SET,
    CLOCK_STARTED,
    FORFEITED,
    MOVE_TIMED,
    TIMED_OUT,
    TIMEOUT_COMMAND,
    ClockView,
    SeatClock,
    TimeControl,
    TimeoutBody,
)
from schemas.game_schemas import ABANDON_COMMAND
from schemas.legal import Choice
from services.games.abandon import abandon, decide_any
from services.games.base import Body, Command, Event, Game, Outcome, Seat
from services.games.errors import GAME_OVER, BadCommand, GameOver, Rejected
from services.games.kit import first_error
from services.games.registry import get_game


@dataclass(frozen=True, slots=True)
class SeatState:
    since_ms: int | None = None  # when its current decision began; None: it has none
    bank_ms: int = 0  # a bank clock: what is left (as of since_ms while it decides)
    in_row: int = 0
    timeouts: int = 0


@dataclass(frozen=True, slots=True)
class Clock:
    control: TimeControl
    seats: tuple[SeatState, ...]
    started: bool = False
    at_ms: int = 0  # the time of the last clock event
    forfeited: Seat | None = None
    reason: str | None = None

    def allowance_ms(self, seat: Seat) -> int:
        return self.seats[seat].bank_ms if self.control.kind == "bank" else int(self.control.seconds * 1000)

    def deadline(self, seat: Seat) -> int | None:
        since = self.seats[seat].since_ms
        if not self.started or self.forfeited is not None or since is None:
            return None
        return since + self.allowance_ms(seat)

    def earliest(self) -> tuple[int, Seat] | None:
        """The deadline that passes first, and its seat; None when no seat is on the clock."""
        due = [(d, s) for s in range(len(self.seats)) if (d := self.deadline(s)) is not None]
        return min(due) if due else None

    def settle(self, acting: frozenset[Seat], actor: Seat, at_ms: int, stand_in: bool) -> Clock:
        """The clock after ``actor``'s decision at ``at_ms``, ``acting`` the seats to act after it."""
        bank = self.control.kind == "bank"
        increment = int(self.control.increment * 1000)
        seats = []
        for s, sc in enumerate(self.seats):
            if sc.since_ms is not None and (s == actor or s not in acting):  # its decision ended
                left = max(0, sc.bank_ms - (at_ms - sc.since_ms)) + (increment if s == actor else 0)
                sc = replace(sc, bank_ms=left if bank else sc.bank_ms, since_ms=at_ms if s in acting else None,
                             in_row=0 if s == actor and not stand_in else sc.in_row)
            elif sc.since_ms is None and s in acting:
                sc = replace(sc, since_ms=at_ms)
            seats.append(sc)
        return replace(self, seats=tuple(seats), at_ms=at_ms)

    def view(self) -> ClockView:
        return ClockView(control=self.control, started=self.started, at_ms=self.at_ms, seats=[
            SeatClock(seat=s, remaining_ms=sc.bank_ms if self.control.kind == "bank" else self.allowance_ms(s),
                      deadline_ms=self.deadline(s), timeouts=sc.timeouts, in_row=sc.in_row,
                      forfeited=self.forfeited == s)
            for s, sc in enumerate(self.seats)])


@dataclass(frozen=True, slots=True)
class MatchState:
    """A match's state: the game's own and the match's clock (None: no clock)."""

    game: Any
    clock: Clock | None = None
    seats: int = 0


def clock_of(state: Any) -> Clock | None:
    return state.clock if isinstance(state, MatchState) else None


def forfeit_outcome(seats: int, seat: Seat, reason: str | None) -> Outcome:
    """A forfeit's outcome: the seat places last, every other seat shares the win, nobody scores."""
    return Outcome(scores=(0,) * seats, winners=tuple(s for s in range(seats) if s != seat),
                   detail={"forfeited": [seat], "reason": reason})


def _body(model: type[BaseModel], body: Body) -> Any:
    try:
        return model.model_validate(body)
    except ValidationError as e:
        raise BadCommand(first_error(e)) from None


class ClockedGame:
    """A game with the match layer: the same contract over :class:`MatchState` (see the module docstring)."""

    def __init__(self, game: Game[Any]) -> None:
        self.inner = game
        self.name, self.title = game.name, game.title
        self.min_seats, self.max_seats, self.Options = game.min_seats, game.max_seats, game.Options

    def initial(self) -> MatchState:
        return MatchState(self.inner.initial())

    def setup(self, options: Mapping[str, Any], seats: int, rng: random.Random) -> list[Event]:
        return self.inner.setup(options, seats, rng)

    def evolve(self, state: MatchState, event: Event) -> MatchState:
        kind, body, clock = event.type, event.body, state.clock
        if kind == CLOCK_SET:
            control = TimeControl.model_validate(body["control"])
            bank = int(control.seconds * 1000) if control.kind == "bank" else 0
            return replace(state, clock=Clock(control, tuple(SeatState(bank_ms=bank) for _ in range(state.seats))))
        if clock is None or kind not in (CLOCK_STARTED, MOVE_TIMED, TIMED_OUT, FORFEITED):
            inner = self.inner.evolve(state.game, event)
            count = int(body.get("seats", 0)) if kind == "MatchStarted" and not state.seats else state.seats
            return MatchState(inner, clock, count)
        at = int(body["at_ms"])
        if kind == CLOCK_STARTED:
            acting = self.inner.to_act(state.game)
            seats = tuple(replace(sc, since_ms=at if s in acting else None) for s, sc in enumerate(clock.seats))
            return replace(state, clock=replace(clock, started=True, at_ms=at, seats=seats))
        seat = int(body["seat"])
        if kind == MOVE_TIMED:
            acting = self.inner.to_act(state.game) if self.inner.outcome(state.game) is None else frozenset()
            return replace(state, clock=clock.settle(acting, seat, at, bool(body.get("stand_in"))))
        if kind == TIMED_OUT:
            seats = tuple(replace(sc, in_row=int(body["in_row"]), timeouts=sc.timeouts + 1) if s == seat else sc
                          for s, sc in enumerate(clock.seats))
            return replace(state, clock=replace(clock, seats=seats, at_ms=at))
        seats = tuple(replace(sc, timeouts=sc.timeouts + 1, in_row=sc.in_row + 1, since_ms=None) if s == seat else sc
                      for s, sc in enumerate(clock.seats))
        return replace(state, clock=replace(clock, seats=seats, at_ms=at, forfeited=seat, reason=str(body["reason"])))

    def decide(self, state: MatchState, command: Command, rng: random.Random) -> list[Event]:
        return self.decide_at(state, command, rng, None)

    def decide_at(self, state: MatchState, command: Command, rng: random.Random, now_ms: int | None) -> list[Event]:
        """The events of ``command`` decided at ``now_ms`` (server time; needed once the match's clock runs)."""
        if command.type == ABANDON_COMMAND:
            return abandon(self, state, command.body)
        if command.type == TIMEOUT_COMMAND:
            return self._timeout(state, command, rng, now_ms)
        if state.clock is not None and state.clock.forfeited is not None:
            raise GameOver(GAME_OVER)
        events = self.inner.decide(state.game, command, rng)
        clock = state.clock
        if clock is None or not clock.started or not events:
            return events
        if now_ms is None:
            raise ValueError("a clocked match's command needs the time it is decided at")
        return [*events, Event(MOVE_TIMED, {"seat": command.seat, "at_ms": now_ms})]

    def _timeout(self, state: MatchState, command: Command, rng: random.Random, now_ms: int | None) -> list[Event]:
        body: TimeoutBody = _body(TimeoutBody, command.body)
        clock, seat = state.clock, command.seat
        if self.outcome(state) is not None:
            raise GameOver(GAME_OVER)
        if clock is None or not clock.started:
            raise BadCommand("the match has no running clock")
        deadline = clock.deadline(seat) if 0 <= seat < len(clock.seats) else None
        if deadline is None or deadline != body.deadline_ms:
            raise BadCommand(f"seat {seat} has no decision on the clock with that deadline")
        if now_ms is None or now_ms < deadline:
            raise BadCommand("the deadline has not passed")
        in_row = clock.seats[seat].in_row + 1
        if clock.control.kind == "bank" or in_row >= clock.control.timeouts:
            reason = "bank" if clock.control.kind == "bank" else "timeouts"
            return [Event(FORFEITED, {"seat": seat, "at_ms": now_ms, "deadline_ms": deadline, "reason": reason})]
        moves = self._stand_in(state.game, seat, body.move, rng)
        return [Event(TIMED_OUT, {"seat": seat, "at_ms": now_ms, "deadline_ms": deadline, "in_row": in_row}),
                *moves, Event(MOVE_TIMED, {"seat": seat, "at_ms": now_ms, "stand_in": True})]

    def _stand_in(self, inner: Any, seat: Seat, move: Mapping[str, Any] | None, rng: random.Random) -> list[Event]:
        """The events of the move chosen for a seat that timed out: the one proposed, else the first legal one."""
        tries: list[Command] = []
        if move is not None and isinstance(move.get("type"), str) and isinstance(move.get("body", {}), dict):
            tries.append(Command(seat, str(move["type"]), dict(move.get("body") or {})))
        tries += self.inner.legal_commands(inner, seat)[:4]
        state = rng.getstate()
        for command in tries:
            rng.setstate(state)  # the same dice whichever move is taken in the end
            try:
                events = self.inner.decide(inner, command, rng)
            except Rejected:
                continue
            if events:
                return events
        raise BadCommand(f"seat {seat} has no move the service can make for it")

    def view(self, state: MatchState, seat: Seat | None) -> Body:
        return self.inner.view(state.game, seat)

    def legal(self, state: MatchState, seat: Seat) -> list[Choice]:
        return [] if self._forfeited(state) else self.inner.legal(state.game, seat)

    def legal_commands(self, state: MatchState, seat: Seat) -> list[Command]:
        return [] if self._forfeited(state) else self.inner.legal_commands(state.game, seat)

    def outcome(self, state: MatchState) -> Outcome | None:
        clock = state.clock
        if clock is not None and clock.forfeited is not None:
            return forfeit_outcome(state.seats, clock.forfeited, clock.reason)
        return self.inner.outcome(state.game)

    def to_act(self, state: MatchState) -> frozenset[Seat]:
        return frozenset() if self._forfeited(state) else self.inner.to_act(state.game)

    def deadline(self, state: MatchState) -> tuple[int, Seat] | None:
        """The match's next deadline and its seat (None: no clock runs, or the match is over)."""
        clock = state.clock
        if clock is None or self.outcome(state) is not None:
            return None
        return clock.earliest()

    @staticmethod
    def _forfeited(state: MatchState) -> bool:
        return state.clock is not None and state.clock.forfeited is not None


@cache
def match_game(name: str) -> ClockedGame:
    """The registered game ``name`` with the match layer (raises ``BadOptions`` for an unknown one)."""
    return ClockedGame(get_game(name))


def clocked(game: Game[Any]) -> ClockedGame:
    """``game`` with the match layer (itself when it has it already)."""
    return game if isinstance(game, ClockedGame) else ClockedGame(game)


def decide_match(game: Game[Any], state: Any, command: Command, rng: random.Random,
                 now_ms: int | None = None) -> list[Event]:
    """What a worker (and verify) decides: any command, the service's own included, at ``now_ms``."""
    if isinstance(game, ClockedGame):
        return game.decide_at(state, command, rng, now_ms)
    return decide_any(game, state, command, rng)


def clock_events(control: TimeControl | None) -> list[Event]:
    """The events a match's set-up ends with for its time control (none without a clock)."""
    return [] if control is None or not control.clocked else [Event(CLOCK_SET, {"control": control.model_dump()})]
