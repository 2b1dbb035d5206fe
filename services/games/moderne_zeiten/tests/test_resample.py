"""Resampling the hidden state from a seat's view: the view is kept exactly, and play goes on legally."""

from __future__ import annotations

import random

import pytest

from services.games import get_game
from services.games.moderne_zeiten.data import CARDS_PER_INDUSTRY, N_INDUSTRIES
from services.games.moderne_zeiten.resample import resample
from services.games.moderne_zeiten.state import State
from tests.games.harness import assert_resample_plays_on, start

GAME = get_game("moderne-zeiten")


def states_of_random_play(seats: int, seed: int, options: dict[str, bool] | None = None) -> list[State]:
    state, _ = start(GAME, seats, options or {}, seed)
    pick = random.Random(seed)
    out = [state]
    while GAME.outcome(state) is None:
        seat = min(GAME.to_act(state))
        for event in GAME.decide(state, pick.choice(GAME.legal_commands(state, seat)), pick):
            state = GAME.evolve(state, event)
        out.append(state)
    return out


def card_totals(s: State) -> list[int]:
    return [
        s.stack.count(i) + s.lot.count(i) + sum(h[i] for h in s.hands) + sum(p[i] for p in s.played)
        for i in range(N_INDUSTRIES)
    ]


@pytest.mark.parametrize(("seats", "options"), [
    (3, {}), (4, {}), (5, {}),
    (4, {"forced_move": False, "move_needs_play": False, "crash_after_move": False}),
])
def test_the_resampled_state_shows_the_seat_exactly_its_view_and_plays_on(seats: int, options: dict[str, bool]) -> None:
    rng = random.Random(seats)
    checked = 0
    for seed in range(4):
        for state in states_of_random_play(seats, seed, options)[::3]:
            for seat in range(seats):
                view = GAME.view(state, seat)
                sampled = resample(view, seat, rng)
                assert GAME.view(sampled, seat) == view
                assert card_totals(sampled) == [CARDS_PER_INDUSTRY] * N_INDUSTRIES
                assert_resample_plays_on(GAME, sampled, state, seat)
                checked += 1
    assert checked > 100


def test_resampling_draws_the_hidden_cards_afresh() -> None:
    state = states_of_random_play(4, 7)[10]
    view = GAME.view(state, 0)
    samples = {(resample(view, 0, random.Random(k)).hands[1:], resample(view, 0, random.Random(k)).stack)
               for k in range(10)}
    assert len(samples) > 1
    assert all(hands != () for hands, _ in samples)


def test_resample_needs_the_seats_own_view() -> None:
    state = states_of_random_play(3, 1)[5]
    with pytest.raises(ValueError):
        resample(GAME.view(state, None), 0, random.Random(0))
    with pytest.raises(ValueError):
        resample(GAME.view(state, 1), 0, random.Random(0))
