"""Small builders for Moderne Zeiten rule tests: states made by evolving events and _replace."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from services.games.base import Command, Event
from services.games.moderne_zeiten import GAME
from services.games.moderne_zeiten.data import INDUSTRIES, counts_of
from services.games.moderne_zeiten.state import NO_CARDS, NOBODY, Phase, State

SHIP, AVI, HIGH, AUTO, TEL = range(5)


def started(seats: int = 4, **options: bool) -> State:
    """Right after MatchStarted: unshuffled stack, nothing dealt."""
    opts = {"forced_move": True, "move_needs_play": True, "crash_after_move": True, **options}
    return GAME.evolve(
        GAME.initial(), Event("MatchStarted", {"game": GAME.name, "seats": seats, "options": opts})
    )


def hands_of(seats: int, given: Mapping[int, Mapping[str, int]]) -> tuple[tuple[int, ...], ...]:
    return tuple(counts_of(given[p]) if p in given else NO_CARDS for p in range(seats))


def turn_state(
    seats: int = 4,
    current: int = 0,
    *,
    hands: Mapping[int, Mapping[str, int]] | None = None,
    played: Mapping[int, Mapping[str, int]] | None = None,
    options: Mapping[str, bool] | None = None,
    stack: tuple[int, ...] | None = None,
    **changes: Any,
) -> State:
    """A state where ``current`` is to draw or play, first turn of round 1 (start player = current)."""
    s = started(seats, **(options or {}))
    s = s._replace(
        phase=Phase.TURN, current=current, start_player=current, round=1,
        hands=hands_of(seats, hands or {}), played=hands_of(seats, played or {}),
    )
    if stack is not None:
        s = s._replace(stack=stack)
    s = s._replace(controller=majorities(s))
    return s._replace(**changes)


def majorities(s: State) -> tuple[int, ...]:
    """Controllers from the cards in play: the single greatest count; ties give NOBODY (set by hand)."""
    out = []
    for i in range(5):
        counts = [row[i] for row in s.played]
        top = max(counts)
        out.append(counts.index(top) if top and counts.count(top) == 1 else NOBODY)
    return tuple(out)


def auction_state(
    seats: int = 4, start: int = 0, lot: tuple[int, ...] = (AVI, AVI, TEL), **changes: Any
) -> State:
    s = started(seats)._replace(phase=Phase.AUCTION, start_player=start, bidder=start, round=1, lot=lot)
    return s._replace(**changes)


def act(state: State, seat: int, type_: str, body: dict[str, Any] | None = None, seed: int = 1
        ) -> tuple[State, list[Event]]:
    """Decide and apply one command."""
    events = GAME.decide(state, Command(seat, type_, body or {}), random.Random(seed))
    for event in events:
        state = GAME.evolve(state, event)
    return state, events


def types(events: list[Event]) -> list[str]:
    return [e.type for e in events]


def of_type(events: list[Event], type_: str) -> list[Event]:
    return [e for e in events if e.type == type_]


def claim(state: State, space: int, seat: int) -> State:
    claims = list(state.claims)
    claims[space - 1] = seat
    return state._replace(claims=tuple(claims))


def controller(state: State, **by_industry: int) -> State:
    ctrl = list(state.controller)
    for name, seat in by_industry.items():
        ctrl[INDUSTRIES.index(name)] = seat
    return state._replace(controller=tuple(ctrl))
