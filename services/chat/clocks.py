"""Turn clocks (#29) in chat words: a time control written short (``30s``, ``5m+5s``), what is left on each seat's
clock, the service's clock events as sentences, a forfeit's end, and when to remind the seat to act.

Every time here is server time in ms since the epoch. A view record from a gateway carries ``server_ms``, the
gateway's time when it sent it: a deadline is counted down from there, never from this machine's clock; a record of
the embedded service has none, and this machine's time is the server's (:func:`server_now`).

The service's own clock events are the chat layer's to tell, whatever the game's adapter: ``ClockSet``,
``ClockStarted`` and ``MoveTimed`` are noise; ``TimedOut`` is a sentence (:func:`event_text`);
``Forfeited`` ends the match, and the end of the match says it (:func:`forfeit_text`), so it is not told twice.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

from schemas.clock import CLOCK_EVENTS, TIMED_OUT, ClockView, TimeControl
from schemas.envelopes import EventEnvelope, ViewContract

REMIND_MS = 10_000  # the seat to act is reminded at 10 s left, or a quarter of the control's time if more...
MIN_REMIND_MS = 2_000  # ... but never with less than 2 s left (nobody can act on it)
MAX_SECONDS = 604_800.0  # schemas.clock.TimeControl's bounds, said in words
MAX_INCREMENT = 3_600.0
CLOCK_EXAMPLES = "30s (30 s a move) or 5m+5s (a 5 min bank, +5 s a move)"

_PART = r"(?:\d+(?:\.\d+)?)"
_SPAN_RE = re.compile(rf"^(?:({_PART})h)?(?:({_PART})m(?:in)?)?(?:({_PART})s)?$")
_CLOCK_RE = re.compile(r"^([^+/]+)(?:\+([^+/]+))?(?:/(\d+))?$")


def wall_ms() -> int:
    """This machine's time, ms since the epoch (the server's, for the embedded service)."""
    return int(time.time() * 1000)


def server_now(record: ViewContract, now_ms: Callable[[], int] = wall_ms) -> int:
    """The server's time as of ``record``: the gateway's stamp, else (the embedded service) this machine's."""
    return record.server_ms if record.server_ms is not None else now_ms()


# -- durations -----------------------------------------------------------------------------------
def span(seconds: float) -> str:
    """A time control's length in words: ``30 s``, ``5 min``, ``1 min 30 s``, ``2 h``, ``0.5 s``."""
    if seconds < 60:
        return f"{seconds:g} s"
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{hours} h" if hours else "", f"{minutes} min" if minutes else "", f"{secs} s" if secs else ""]
    return " ".join(p for p in parts if p)


def left(ms: int) -> str:
    """Time left on a clock: ``20 s`` under a minute, then ``1:35``, ``1:02:03``, ``2 d 1:02:03`` (whole seconds,
    rounded up: ``1 s`` until it is gone)."""
    seconds = max(0, math.ceil(ms / 1000))
    if seconds < 60:
        return f"{seconds} s"
    days, rest = divmod(seconds, 86_400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    clock = f"{hours}:{minutes:02d}:{secs:02d}" if hours or days else f"{minutes}:{secs:02d}"
    return f"{days} d {clock}" if days else clock


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def control_text(control: TimeControl) -> str:
    """``30 s a move; 3 timeouts in a row forfeit`` or ``5 min bank, +5 s a move``."""
    if control.kind == "move":
        row = "the first timeout forfeits" if control.timeouts == 1 else \
            f"{control.timeouts} timeouts in a row forfeit"
        return f"{span(control.seconds)} a move; {row}"
    if control.kind == "bank":
        plus = f", +{span(control.increment)} a move" if control.increment else ""
        return f"{span(control.seconds)} bank{plus}; an empty bank forfeits"
    return "no clock"


# -- reading a clock written in chat -------------------------------------------------------------
def _seconds(text: str) -> float | None:
    """``30s``, ``5m``, ``1m30s``, ``1.5h``, ``2min`` in seconds; ``0`` alone is 0; None for anything else."""
    if text == "0":
        return 0.0
    m = _SPAN_RE.match(text)
    if m is None or not any(m.groups()):
        return None
    hours, minutes, secs = (float(g) if g else 0.0 for g in m.groups())
    return hours * 3600 + minutes * 60 + secs


def looks_like_clock(text: str) -> bool:
    """Whether a bare word of ``!new`` is meant as a clock (starts with a digit, and is not the player count)."""
    return bool(text) and text[0].isdigit() and not text.isdigit()


def parse_clock(text: str) -> TimeControl | str:
    """A time control written short: ``30s`` (per move), ``30s/2`` (per move, 2 timeouts in a row forfeit),
    ``5m+5s`` (a bank plus an increment a move; ``5m+0`` a bank alone), ``none``. A string is the one-line
    reason it is not one."""
    text = text.strip().lower()
    if text in ("none", "off", "untimed"):
        return TimeControl(kind="none")
    m = _CLOCK_RE.match(text)
    if m is None:
        return f"'{text[:30]}' is not a clock; write e.g. {CLOCK_EXAMPLES}"
    main, plus, row = m.groups()
    seconds = _seconds(main)
    if seconds is None:
        hint = " (say the unit: 30s, 5m)" if main.replace(".", "").isdigit() else ""
        return f"'{text[:30]}' is not a clock{hint}; write e.g. {CLOCK_EXAMPLES}"
    if not 0.1 <= seconds <= MAX_SECONDS:
        return f"a clock of {main} is out of bounds: from 0.1 s to 7 days"
    increment: float | None = 0.0
    if plus is not None:
        increment = _seconds(plus)
        if increment is None:
            return f"'{plus}' is not an increment; write e.g. 5m+5s, or 5m+0 for a bank without one"
        if increment > MAX_INCREMENT:
            return f"an increment of {plus} is too long: at most 1 h a move"
        if row is not None:
            return "a bank (5m+5s) forfeits when it is empty: '/timeouts' is only for a clock per move (30s/3)"
    timeouts = int(row[:3]) if row is not None else 3
    if not 1 <= timeouts <= 20:
        return f"timeouts in a row that forfeit: 1 to 20, not {row}"
    try:
        if plus is not None:
            return TimeControl(kind="bank", seconds=seconds, increment=increment or 0.0)
        return TimeControl(kind="move", seconds=seconds, timeouts=timeouts)
    except ValidationError as e:  # (bounds are checked above: this is a safety net)
        return f"'{text[:30]}' is not a clock: {e.errors()[0]['msg']}"


def clock_wire(control: TimeControl) -> dict[str, Any]:
    """What ``create_match(clock=...)`` takes."""
    return control.model_dump()


# -- what the clocks say now ---------------------------------------------------------------------
def clock_of(record: ViewContract | None) -> ClockView | None:
    clock = record.clock if record is not None else None
    return clock if clock is not None and clock.control.clocked else None


def remaining(clock: ClockView, seat: int, now: int) -> int | None:
    """ms left on ``seat``'s current decision (None: it has none)."""
    seats = {s.seat: s for s in clock.seats}
    entry = seats.get(seat)
    if entry is None or entry.deadline_ms is None or not clock.started:
        return None
    return entry.deadline_ms - now


def times_left(record: ViewContract | None, seats: list[int], now_ms: Callable[[], int] = wall_ms) -> dict[int, str]:
    """The time left to each of ``seats`` that has a decision on the clock (``20 s``, ``1:35``): what the turn
    line and the prompt say; empty for a match without a running clock."""
    clock = clock_of(record)
    if clock is None or record is None:
        return {}
    now = server_now(record, now_ms)
    return {s: left(ms) for s in seats if (ms := remaining(clock, s, now)) is not None}


def clocks_line(record: ViewContract | None, names: Callable[[int], str],
                now_ms: Callable[[], int] = wall_ms) -> str | None:
    """Every seat's clock in one line, for the board and the status:
    ``Clocks (30 s a move; 3 timeouts in a row forfeit): ann 20 s left to move · bob waiting.``"""
    clock = clock_of(record)
    if clock is None or record is None:
        return None
    head = f"Clocks ({control_text(clock.control)})"
    if not clock.started:
        return f"{head}: they start when every seat is taken."
    now = server_now(record, now_ms)
    parts = []
    for entry in clock.seats:
        name = names(entry.seat)
        if entry.forfeited:
            parts.append(f"{name} forfeited")
            continue
        ms = remaining(clock, entry.seat, now)
        if ms is not None:
            text = f"{name} {left(ms)} left to move"
        elif clock.control.kind == "bank" and entry.remaining_ms is not None:
            text = f"{name} {left(entry.remaining_ms)}"
        else:
            text = f"{name} waiting"
        if clock.control.kind == "move" and entry.in_row:
            text += f" ({entry.in_row} timeout{'s' if entry.in_row > 1 else ''} in a row)"
        parts.append(text)
    return f"{head}: {' · '.join(parts)}."


def reminder_threshold_ms(clock: ClockView, seat: int) -> int | None:
    """How little time left on ``seat``'s decision earns it a reminder: 10 s, or a quarter of the control's time
    when that is more, but at most half of what the seat had when the decision began (a reminder is no news
    at the start of a decision: the prompt says the time)."""
    entry = next((s for s in clock.seats if s.seat == seat), None)
    if entry is None or entry.remaining_ms is None:
        return None
    return int(min(max(REMIND_MS, clock.control.seconds * 1000 / 4), entry.remaining_ms / 2))


def consequence(clock: ClockView, seat: int, you: bool) -> str:
    """What happens when the seat's time runs out, as the reminder says it."""
    entry = next((s for s in clock.seats if s.seat == seat), None)
    if clock.control.kind == "bank":
        return "when your bank is empty you forfeit" if you else "an empty bank forfeits"
    in_row = (entry.in_row if entry else 0) + 1
    if in_row >= clock.control.timeouts:
        return f"then you forfeit ({ordinal(in_row)} timeout in a row)" if you else "a timeout now forfeits"
    return (f"then the service's bot plays for you ({ordinal(in_row)} timeout in a row; a "
            f"{ordinal(clock.control.timeouts)} forfeits)")


def reminder_text(clock: ClockView, seat: int, ms: int, where: str = "") -> str:
    place = f" at {where}" if where else ""
    return f"Hurry: {left(ms)} left for your move{place}; {consequence(clock, seat, you=True)}."


# -- the clock's events and the end of a match ---------------------------------------------------
def is_clock_event(envelope: EventEnvelope) -> bool:
    return envelope.type in CLOCK_EVENTS


def event_text(envelope: EventEnvelope, names: Callable[[int], str], control: TimeControl | None,
               me: int | None = None) -> str | None:
    """A clock event in words (None: not told). ``me``: the reader's seat, told as "you"."""
    if envelope.type != TIMED_OUT:
        return None
    body = envelope.body
    seat, in_row = int(body.get("seat", -1)), int(body.get("in_row", 1))
    row = f"{in_row} in a row"
    if control is not None and control.kind == "move":
        row += f"; a {ordinal(control.timeouts)} forfeits"
    if seat == me:
        return f"Time ran out for you: the service's bot played for you ({row})."
    who = names(seat)
    return f"Time ran out for {who}: the service's bot played for {who} ({row})."


def is_forfeit(outcome: Any) -> bool:
    return isinstance(outcome, Mapping) and bool((outcome.get("detail") or {}).get("forfeited"))


def _why(reason: str | None, control: TimeControl | None) -> str:
    if reason == "bank":
        return "out of time (the bank ran out)"
    if reason == "timeouts" and control is not None and control.kind == "move":
        return f"out of time ({control.timeouts} timeout{'s' if control.timeouts > 1 else ''} in a row)"
    return "out of time"


def forfeit_text(outcome: Mapping[str, Any], names: Callable[[int], str], control: TimeControl | None,
                 me: int | None = None) -> str:
    """A forfeit's end: ``bob forfeited: out of time (3 timeouts in a row). ann and carol win.`` (for a seat
    ``me`` of the match: ``You forfeited...``, ``You won: bob forfeited...``)."""
    detail = outcome.get("detail") or {}
    losers = [int(s) for s in detail.get("forfeited") or []]
    winners = [int(s) for s in outcome.get("winners") or []]
    why = _why(detail.get("reason"), control)
    lost = " and ".join(names(s) for s in losers)
    won = " and ".join(names(s) for s in winners)
    if me is not None and me in losers:
        return f"You forfeited: {why}. Won by {won}." if won else f"You forfeited: {why}."
    if me is not None and me in winners:
        return f"You won: {lost} forfeited, {why}."
    verb = "wins" if len(winners) == 1 else "win"
    return f"{lost} forfeited: {why}. {won} {verb}." if won else f"{lost} forfeited: {why}. Nobody won."
