"""``GAME.evolve`` reuses the states ``decide`` computed only for the very same state and event objects."""

from __future__ import annotations

import random

from services.games.mad_zeppelin import GAME
from services.games.mad_zeppelin.evolve import evolve as apply
from services.games.mad_zeppelin.state import State
from services.games.rng import derive_rng


def _started(seed: int = 7, seats: int = 3) -> State:
    state = GAME.initial()
    for event in GAME.setup({}, seats, derive_rng(seed, 0)):
        state = GAME.evolve(state, event)
    return state


def test_evolve_after_decide_equals_a_fresh_application() -> None:
    pick = random.Random(3)
    state = _started()
    for version in range(1, 200):
        if GAME.outcome(state) is not None:
            break
        seat = min(GAME.to_act(state))
        events = GAME.decide(state, pick.choice(GAME.legal_commands(state, seat)), derive_rng(7, version))
        for event in events:
            fresh = apply(state, event)
            state = GAME.evolve(state, event)
            assert state == fresh


def test_other_states_are_applied_not_recalled() -> None:
    state = _started()
    seat = min(GAME.to_act(state))
    events = GAME.decide(state, GAME.legal_commands(state, seat)[0], derive_rng(7, 1))
    copy = State(*state)  # equal, but not the object decide saw
    assert copy == state and copy is not state
    assert GAME.evolve(copy, events[0]) == apply(state, events[0])
    other = _started(seed=8)  # a different state: the event is applied to it, not recalled
    assert GAME.evolve(other, events[0]) == apply(other, events[0])
