"""Moderne Zeiten: a broad superset of the commands a seat might send in a state, for the conformance
suite's legal-completeness check (whatever ``decide`` accepts of these must be covered by ``legal``).

Bids from below the current bid to beyond the seat's money; pass and draw; plays of every count from 0
to one more than held of each industry (all of them for a small hand, else each industry alone, the hand,
the hand plus one, and a seeded spread), the empty play; moves to every industry, Finish and staying; and
malformed bodies that must be refused (strings and booleans for numbers, zero counts, unknown fields).
"""

from __future__ import annotations

import itertools
import random
from typing import Any

from services.games.moderne_zeiten.schemas import INDUSTRIES, MOVE_TARGETS
from services.games.moderne_zeiten.state import State

ALL_PLAYS_UP_TO = 400  # enumerate every play of 0..held+1 per industry up to this many, else a spread
SPREAD = 150

Candidate = tuple[str, dict[str, Any]]


def candidates(state: State, seat: int) -> list[Candidate]:
    out: list[Candidate] = []
    money = state.money[seat] if 0 <= seat < len(state.money) else 15
    hand = state.hands[seat] if 0 <= seat < len(state.hands) else (0,) * len(INDUSTRIES)
    out += _bids(state.high_bid, money)
    out += [("pass", {}), ("draw", {}), ("pass", {"amount": 1}), ("draw", {"cards": {}})]
    spread = random.Random(f"{state.round}/{state.turns_taken}/{seat}/{hand}")  # the same for the same state
    out += [("play", {"cards": cards}) for cards in _plays(hand, spread)]
    out += [("play", {}), ("play", {"cards": {}}), ("play", {"cards": {"zeppelins": 1}}),
            ("play", {"cards": {INDUSTRIES[0]: -1}}), ("play", {"cards": {INDUSTRIES[1]: "1"}}),
            ("play", {"cards": {INDUSTRIES[2]: True}}), ("play", {"cards": [INDUSTRIES[0]]}),
            ("play", {"cards": {i: 1 for i in INDUSTRIES}, "to": None})]
    out += [("move", {"to": to}) for to in MOVE_TARGETS]
    out += [("move", {}), ("move", {"to": "mars"}), ("move", {"to": 0}), ("move", {"to": False}),
            ("move", {"to": "Aviation"}), ("move", {"to": "finish", "now": True})]
    out += [("cheat", {}), ("Bid", {"amount": money})]
    return out


def _bids(high: int, money: int) -> list[Candidate]:
    amounts = sorted({-1, 0, high, high + 1, high + 2, *range(0, money + 4)})
    out: list[Candidate] = [("bid", {"amount": a}) for a in amounts]
    first = high + 1
    out += [("bid", {"amount": str(first)}), ("bid", {"amount": True}), ("bid", {"amount": float(first)}),
            ("bid", {"amount": None}), ("bid", {}), ("bid", {"amount": first, "for": "me"})]
    return out


def _plays(hand: tuple[int, ...], rng: random.Random) -> list[dict[str, int]]:
    """Card mappings with counts 0..held+1 per industry; zero counts are written out in some of them."""
    ranges = [range(n + 2) for n in hand]
    total = 1
    for r in ranges:
        total *= len(r)
    if total <= ALL_PLAYS_UP_TO:
        combos = list(itertools.product(*ranges))
    else:
        combos = [tuple(k if j == i else 0 for j in range(len(hand))) for i, n in enumerate(hand) for k in range(n + 2)]
        combos += [hand, tuple(min(n, 1) for n in hand)]
        combos += [tuple(n + (j == i) for j, n in enumerate(hand)) for i in range(len(hand))]
        combos += [tuple(rng.randrange(len(r)) for r in ranges) for _ in range(SPREAD)]
    out = []
    for n, combo in enumerate(combos):
        cards: dict[str, int] = {INDUSTRIES[i]: c for i, c in enumerate(combo) if c}
        out.append(cards)
        if n % 7 == 0 and len(cards) < len(INDUSTRIES):  # the same play with a zero count written out
            zero = next(i for i in INDUSTRIES if i not in cards)
            out.append({**cards, zero: 0})
    return out
