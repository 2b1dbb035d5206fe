"""Plug-ins for the generic hidden-information tests (tests/games/test_hidden_generic.py).

A perturber takes a state, a seat (None: a spectator) and a generator, and returns a state that differs
from it only in what that seat may not see (other seats' hands, the order of a face-down stack, a
secret role...). The views of that seat must not change. Each game registers one here, keyed by its
registry name; a built-in game without one is reported as skipped, naming this file.

To add a game: write ``def _my_game(state, seat, rng) -> state`` that reshuffles everything hidden from
``seat`` (keeping what the seat may know, such as counts) and add it to ``PERTURBERS``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from services.games.moderne_zeiten.state import State as MZState

Perturb = Callable[[Any, int | None, random.Random], Any]


def _moderne_zeiten(state: MZState, seat: int | None, rng: random.Random) -> MZState:
    """Pool the other seats' hands with the stack and deal them out again: every hidden holder keeps its
    count (hand sizes are public), but which industries it holds, and the stack order, change."""
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


PERTURBERS: dict[str, Perturb] = {
    "moderne-zeiten": _moderne_zeiten,
    # "modern-world": ...,  (add when the game is merged)
    # "mad-zeppelin": ...,
}
