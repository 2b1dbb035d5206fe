"""Resampling Mad Zeppelin's hidden state from a seat's view: the view is kept exactly, play goes on."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from services.games import get_game
from services.games.mad_zeppelin.data import ALL_CARDS, TRAITOR_KEYS
from services.games.mad_zeppelin.resample import resample
from services.games.mad_zeppelin.state import State
from tests.games.harness import assert_resample_plays_on, start

GAME = get_game("mad-zeppelin")


def states_of_random_play(seats: int, seed: int, mode: str) -> list[State]:
    state, _ = start(GAME, seats, {"mode": mode}, seed)
    pick = random.Random(seed)
    out = [state]
    while GAME.outcome(state) is None:
        seat = min(GAME.to_act(state))
        for event in GAME.decide(state, pick.choice(GAME.legal_commands(state, seat)), pick):
            state = GAME.evolve(state, event)
        out.append(state)
    return out


def cards(s: State) -> Counter[str]:
    out = Counter(s.hold) + Counter(s.removed) + Counter(s.discard)
    for p in s.players:
        out += Counter(p.hand) + Counter(p.front)
    return out + Counter({"journey": s.journeys})


def traitors(s: State) -> list[str]:
    held = [t for p in s.players for t in p.traitors]
    return sorted(held + list(s.airsick) + list(s.pool) + [p.traitor for p in s.plays])


@pytest.mark.parametrize(("seats", "mode"), [(2, "run"), (3, "long_haul"), (4, "run"), (5, "long_haul"),
                                             (6, "run")])
def test_the_resampled_state_shows_the_seat_exactly_its_view_and_plays_on(seats: int, mode: str) -> None:
    rng = random.Random(seats)
    checked = 0
    for seed in range(3):
        for state in states_of_random_play(seats, seed, mode)[::4]:
            for seat in range(seats):
                view = GAME.view(state, seat)
                sampled = resample(view, seat, rng)
                assert GAME.view(sampled, seat) == view
                assert cards(sampled) == Counter(ALL_CARDS)
                if state.phase != "setup" and state.turn:
                    assert traitors(sampled) == sorted(TRAITOR_KEYS)
                assert_resample_plays_on(GAME, sampled, state, seat)
                checked += 1
    assert checked > 100


def test_what_the_seat_looked_at_is_kept() -> None:
    """The leader's look at the unused Traitors and the Geologist's at the Hold hold in every sample."""
    seen = 0
    for seed in range(6):
        for state in states_of_random_play(4, seed, "run"):
            for seat in range(4):
                for kind, of, known in state.notes[seat]:
                    sampled = resample(GAME.view(state, seat), seat, random.Random(seed))
                    if kind == "unused":
                        assert sorted(sampled.airsick + sampled.pool) == sorted(known)
                    elif kind == "hold_top":
                        assert sampled.hold[: len(known)] == known
                    else:
                        assert set(sampled.players[of].traitors) <= set(known)
                    seen += 1
    assert seen > 20


def test_resampling_draws_the_hidden_parts_afresh() -> None:
    state = states_of_random_play(4, 7, "run")[40]
    view = GAME.view(state, 0)
    samples = {(resample(view, 0, random.Random(k)).players[1:], resample(view, 0, random.Random(k)).hold)
               for k in range(10)}
    assert len(samples) > 1


def test_resample_needs_the_seats_own_view() -> None:
    state = states_of_random_play(3, 1, "run")[5]
    with pytest.raises(ValueError):
        resample(GAME.view(state, None), 0, random.Random(0))
    with pytest.raises(ValueError):
        resample(GAME.view(state, 1), 0, random.Random(0))
