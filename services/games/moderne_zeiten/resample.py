"""Resampling the hidden state from one seat's view (for search bots that may not see the full state).

:func:`resample` builds a complete :class:`State` whose view for ``seat`` equals the view it was given.
What the view shows is copied; what it hides is drawn at random from the cards unaccounted for:

- every industry has 21 cards, split between the stack, the hands, the cards played and the lot;
- the seat's own hand, all played cards and the face-up lot are shown, so the rest (the other hands
  and the stack) is the pool; each other hand gets its shown count of cards from the pool, uniformly,
  and the stack is what is left, in random order.

The view carries no history, so cards an opponent is publicly known to hold (won at auction) are not
treated specially: the draw is uniform over the pool. Counters the view leaves implicit are derived:
``turns_taken`` from the current player and the start player, ``played_now`` is 1 while a move is
awaited (the rules only ask whether it is non-zero then, and it is 0 at every other visible moment).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from services.games.moderne_zeiten.data import (
    CARDS_PER_INDUSTRY,
    INDUSTRIES,
    N_INDUSTRIES,
    Board,
    counts_of,
    make_board,
)
from services.games.moderne_zeiten.state import NOBODY, UNCLAIMED, Phase, State, choice_code


def _seat(value: int | None) -> int:
    return NOBODY if value is None else value


@lru_cache(maxsize=8)
def _board(track: tuple[tuple[str, str], ...], cities: tuple[tuple[str, int], ...],
           industries: tuple[tuple[str, int], ...]) -> Board:
    return make_board(track, cities, industries)


def board_of(view: Mapping[str, Any]) -> Board:
    """The board the view shows (the printed one, or another printing a match was set up with)."""
    track = tuple((space["city"], space["industry"]) for space in view["track"])
    return _board(track, tuple(view["city_points"].items()), tuple(view["industry_points"].items()))


def _deal(pool: list[int], count: int, rng: random.Random) -> tuple[int, ...]:
    """Take ``count`` random cards out of ``pool`` (a list of industry indices); their counts."""
    counts = [0] * N_INDUSTRIES
    for _ in range(count):
        card = pool.pop(rng.randrange(len(pool)))
        counts[card] += 1
    return tuple(counts)


def resample(view: Mapping[str, Any], seat: int, rng: random.Random) -> State:
    """A full state consistent with ``view`` (the view of ``seat``), hidden parts drawn with ``rng``."""
    if view.get("seat") != seat or view.get("hand") is None:
        raise ValueError(f"resample needs seat {seat}'s own view")
    board = board_of(view)
    players = view["players"]
    n = len(players)
    phase = Phase(view["phase"])
    hand = counts_of(view["hand"])
    played = tuple(counts_of(p["played"]) for p in players)
    auction = view["auction"]
    lot_counts = counts_of(auction["cards"]) if auction else (0,) * N_INDUSTRIES
    lot = [i for i in range(N_INDUSTRIES) for _ in range(lot_counts[i])]
    rng.shuffle(lot)

    pool: list[int] = []
    for i in range(N_INDUSTRIES):
        known = hand[i] + lot_counts[i] + sum(row[i] for row in played)
        pool.extend([i] * (CARDS_PER_INDUSTRY - known))
    hands = []
    for p in range(n):
        hands.append(hand if p == seat else _deal(pool, players[p]["hand_count"], rng))
    if len(pool) != view["stack_count"]:
        raise ValueError(f"the view does not add up: {len(pool)} cards left for a stack of {view['stack_count']}")
    rng.shuffle(pool)

    current = _seat(view["current"])
    start_player = _seat(view["start_player"])
    in_turn = phase in (Phase.TURN, Phase.MOVING) and current != NOBODY
    claims = tuple(UNCLAIMED if s["claimed_by"] is None else s["claimed_by"] for s in view["track"])
    options = view["options"]
    return State(
        board=board,
        phase=phase,
        seats=n,
        forced_move=options["forced_move"],
        move_needs_play=options["move_needs_play"],
        crash_after_move=options["crash_after_move"],
        stack=tuple(pool),
        hands=tuple(hands),
        played=played,
        money=tuple(p["money"] for p in players),
        big_left=tuple(p["big_markers"] for p in players),
        position=tuple(p["position"] for p in players),
        claims=claims,
        controller=tuple(_seat(view["controller"][name]) for name in INDUSTRIES),
        start_player=start_player,
        round=view["round"],
        lot=tuple(lot),
        high_bid=auction["high_bid"] if auction else 0,
        high_bidder=_seat(auction["high_bidder"]) if auction else NOBODY,
        passed=tuple(p in auction["passed"] for p in range(n)) if auction else (False,) * n,
        bidder=_seat(auction["bidder"]) if auction else NOBODY,
        current=current,
        turns_taken=(current - start_player) % n if in_turn and start_player != NOBODY else 0,
        played_now=1 if phase == Phase.MOVING else 0,
        choices=tuple(choice_code(c) for c in view["move_choices"] or ()) if phase == Phase.MOVING else (),
        ender=_seat(view["ended_by"]),
    )


__all__ = ["board_of", "resample"]


def perturb(state: State, seat: int | None, rng: random.Random) -> State:
    """The secrecy tests' perturber: pool the other seats' hands with the stack and deal them out again.
    Every hidden holder keeps its count (hand sizes are public), but which industries it holds, and the
    stack order, change."""
    others = [p for p in range(state.seats) if p != seat]
    pool = list(state.stack)
    for p in others:
        pool += [i for i, n in enumerate(state.hands[p]) for _ in range(n)]
    rng.shuffle(pool)
    hands = list(state.hands)
    for p in others:
        size = sum(state.hands[p])
        dealt, pool = pool[:size], pool[size:]
        hands[p] = tuple(dealt.count(i) for i in range(len(state.hands[p])))
    return state._replace(hands=tuple(hands), stack=tuple(pool))
