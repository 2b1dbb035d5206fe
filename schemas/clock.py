"""Turn clocks (#29): the time control a match is created with, the service's clock events in every game's log,
the system command a passed deadline becomes, and what each view record says of the clocks.

The clock is the service's, not a game's: every game's log may carry these events, and only the service's
match layer (:mod:`services.games.clock`) folds them; the games' own ``evolve`` never sees them. Every time in
them is server time in milliseconds since the epoch, written by the worker that decided the command, so the
log alone says how much time each seat had and used, and a replay reads no clock.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

TIMEOUT_COMMAND = "match.timeout"
"""The system command a passed deadline becomes: decided by a worker at the version whose deadline passed, its
command id ``timeout-v<version>-s<seat>`` (:func:`timeout_id`; in the match's own at-most-once record, so
derived from match and version) so each deadline is applied at most once. Never accepted from a client (client
command types have no dot, and a client's command ids are ``<seat>.<key>``)."""

CLOCK_SET = "ClockSet"
CLOCK_STARTED = "ClockStarted"
MOVE_TIMED = "MoveTimed"
TIMED_OUT = "TimedOut"
FORFEITED = "Forfeited"
CLOCK_EVENTS = (CLOCK_SET, CLOCK_STARTED, MOVE_TIMED, TIMED_OUT, FORFEITED)

ARENA_CLOCK = {"kind": "move", "seconds": 30.0, "increment": 0.0, "timeouts": 3}
"""The time control of every arena and ladder (rated) match: 30 s per decision, the third timeout in a row
forfeits. A bot author can plan on it (docs/gateway.md)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TimeControl(_Strict):
    """A match's time control. ``none``: no clock (the default for casual matches); ``move``: each decision has at
    most ``seconds`` (a timeout lets the service's heuristic bot decide for the seat; the ``timeouts``-th in a
    row forfeits); ``bank``: each seat has ``seconds`` in all and gains ``increment`` per decision it makes
    (Fischer); an empty bank forfeits."""

    model_config = ConfigDict(extra="forbid", strict=True)

    kind: Literal["none", "move", "bank"] = Field("none", description="none, move (per decision) or bank "
                                                  "(Fischer: a bank per seat plus an increment).")
    seconds: float = Field(60.0, ge=0.1, le=604_800, description="move: the time per decision; bank: each seat's "
                           "bank at the start (s).")
    increment: float = Field(0.0, ge=0, le=3_600, description="bank: added to a seat's bank for each decision "
                             "it makes (s).")
    timeouts: int = Field(3, ge=1, le=20, description="move: the timeouts in a row that forfeit the seat.")

    @property
    def clocked(self) -> bool:
        return self.kind != "none"


class ClockSetEvent(_Strict):
    """The match's time control, written with its set-up (a match with no clock has no such event)."""

    control: TimeControl


class ClockStartedEvent(_Strict):
    """The match began (its last seat was taken): the seats to act are on the clock from ``at_ms``."""

    at_ms: int = Field(ge=0)


class MoveTimedEvent(_Strict):
    """A command of ``seat`` (or the service's decision for it, ``stand_in``) was decided at ``at_ms``: the time
    since each seat came to act is charged, and the seats now to act are on the clock from here."""

    seat: int = Field(ge=0)
    at_ms: int = Field(ge=0)
    stand_in: bool = Field(False, description="The service decided for the seat after its deadline passed.")


class TimedOutEvent(_Strict):
    """The seat's deadline passed (``deadline_ms``) before it acted; the service's heuristic bot decides for it
    (the events that follow). ``in_row``: its timeouts in a row, this one included."""

    seat: int = Field(ge=0)
    at_ms: int = Field(ge=0)
    deadline_ms: int = Field(ge=0)
    in_row: int = Field(ge=1)


class ForfeitedEvent(_Strict):
    """The seat forfeits: too many timeouts in a row, or its bank ran out. The match ends: the seat places last,
    the others share the win (``outcome.detail.forfeited``)."""

    seat: int = Field(ge=0)
    at_ms: int = Field(ge=0)
    deadline_ms: int = Field(ge=0)
    reason: Literal["timeouts", "bank"]


CLOCK_EVENT_MODELS: dict[str, type[BaseModel]] = {
    CLOCK_SET: ClockSetEvent, CLOCK_STARTED: ClockStartedEvent, MOVE_TIMED: MoveTimedEvent,
    TIMED_OUT: TimedOutEvent, FORFEITED: ForfeitedEvent,
}


class TimeoutBody(_Strict):
    """The body of ``match.timeout``: the seat's deadline that passed, and the move the service's heuristic bot
    chose for the seat from its view (None, or a move no longer legal: the first legal command is taken)."""

    deadline_ms: int = Field(ge=0)
    move: dict[str, object] | None = None


class SeatClock(_Strict):
    """One seat's clock as a view record carries it."""

    seat: int
    remaining_ms: int | None = Field(
        default=None, description="bank: what is left of the bank at ``at_ms`` (the seat's own running time not yet "
        "taken off); move: the time per decision. None: no limit.")
    deadline_ms: int | None = Field(
        default=None, description="When the seat's current decision times out (server time, ms since the epoch); "
        "None when it has no decision to make.")
    timeouts: int = Field(description="How many times the seat timed out in this match.")
    in_row: int = Field(description="Its timeouts in a row (the count that forfeits in a move clock).")
    forfeited: bool = False


class ClockView(_Strict):
    """Every seat's clock, in each view record of a clocked match (``clock``; None for a match without one).
    Count down from ``deadline_ms - server_ms`` (the gateway's time when it sent the record): a client's own
    clock need not agree with the server's."""

    control: TimeControl
    started: bool = Field(description="Whether the clock runs (the match has begun).")
    at_ms: int = Field(description="The server time of the version this record reflects.")
    seats: list[SeatClock]


def rated_clock(seconds: float = 30.0) -> TimeControl:
    """The time control of every rated match: :data:`ARENA_CLOCK`, its time per decision from the gateway's
    settings (``AIRSHIP_RATED_CLOCK_S``)."""
    return TimeControl.model_validate({**ARENA_CLOCK, "seconds": float(seconds)})


def timeout_id(version: int, seat: int) -> str:
    """The command id of the timeout of ``seat``'s deadline at ``version`` of a match: one per deadline."""
    return f"timeout-v{version}-s{seat}"
