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
}


def _from_resample(resample: Callable[[dict[str, Any], int, random.Random], Any], game_name: str) -> Perturb:
    """A perturber from a game's ``resample``: a fresh state drawn from what ``seat`` sees (seat 0 for a
    spectator, who sees less than any seat) differs from the true one only in what that seat may not see."""
    from services.games import get_game

    def perturb(state: Any, seat: int | None, rng: random.Random) -> Any:
        observer = 0 if seat is None else seat
        return resample(get_game(game_name).view(state, observer), observer, rng)

    return perturb


def _register_resample_perturbers() -> None:
    from services.games.mad_zeppelin.resample import resample as mad_resample
    from services.games.modern_world.resample import resample as mw_resample

    PERTURBERS["modern-world"] = _from_resample(mw_resample, "modern-world")
    PERTURBERS["mad-zeppelin"] = _from_resample(mad_resample, "mad-zeppelin")


_register_resample_perturbers()
