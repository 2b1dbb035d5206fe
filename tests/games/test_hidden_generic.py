"""Hidden information, for every built-in game: in random reachable states, after every event type the
game emits, each seat's view and the public view are unchanged when everything hidden from that seat is
changed (the perturber of the game's registration, or one drawn from its ``resample``; a game with neither
fails). Every secret event is redacted for the
seats it is not for, in the events and in the envelopes the feeds and exports hand out."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.games import get_game
from services.games.base import Event, Game
from services.games.registration import Perturb
from services.games.registry import registration_of
from services.games.rng import derive_rng
from services.pipeline.states import to_envelope
from tests.registered import SUITE_GAMES


def _checked_playout(game: Game[Any], perturb: Perturb, seed: int, seats: int,
                     max_steps: int) -> tuple[set[str], int]:
    """Play at random; after each command check every seat's view against a perturbed state. Returns the
    event types after which a check ran and how many perturbed states really differed."""
    rng = random.Random(seed)
    events = game.setup({}, seats, derive_rng(seed, 0))
    state = game.initial()
    for event in events:
        state = game.evolve(state, event)
    covered: set[str] = set()
    differed = 0
    new: list[Event] = events
    for _ in range(max_steps):
        _check_events(new, seats)
        for seat in [None, *range(seats)]:
            changed = perturb(state, seat, rng)
            differed += changed != state
            assert game.view(changed, seat) == game.view(state, seat), (seat, [e.type for e in new])
        covered.update(e.type for e in new)
        if game.outcome(state) is not None:
            break
        actor = rng.choice(sorted(game.to_act(state)))
        new = game.decide(state, rng.choice(game.legal_commands(state, actor)), derive_rng(seed, len(events)))
        for event in new:
            state = game.evolve(state, event)
        events += new
    return covered, differed


def _check_events(events: list[Event], seats: int) -> None:
    for version, event in enumerate(events, 1):
        if event.visible_to is None:
            continue
        envelope = to_envelope("m", version, event)
        for seat in [None, *range(seats)]:
            if seat is not None and seat in event.visible_to:
                assert event.seen_by(seat) == event.body
                continue
            assert event.seen_by(seat) == (event.redacted or {})
            stripped = envelope.for_seat(seat)
            assert stripped.body == (event.redacted or {}) and stripped.redacted is None
            assert stripped.visible_to is None


def _perturber(name: str) -> Perturb:
    perturb = registration_of(name).perturber()
    if perturb is None:
        pytest.fail(f"{name} has no hidden-information perturber: give its registration perturb=..., or a bot "
                    f"plug-in with resample=...")
    return perturb


@pytest.mark.parametrize("name", SUITE_GAMES)
def test_views_ignore_hidden_changes_after_every_event_type(name: str) -> None:
    game, perturb = get_game(name), _perturber(name)
    covered: set[str] = set()
    differed = 0
    for seed in range(8):
        seats = game.min_seats + seed % (game.max_seats - game.min_seats + 1)
        types, changed = _checked_playout(game, perturb, seed, seats, max_steps=400)
        covered |= types
        differed += changed
    assert len(covered) >= 3 and differed > 100, (covered, differed)


@pytest.mark.parametrize("name", SUITE_GAMES)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), extra=st.integers(0, 10), steps=st.integers(0, 300))
def test_random_reachable_states_hide_what_they_should(name: str, seed: int, extra: int, steps: int) -> None:
    game, perturb = get_game(name), _perturber(name)
    seats = game.min_seats + extra % (game.max_seats - game.min_seats + 1)
    _checked_playout(game, perturb, seed, seats, max_steps=steps)
