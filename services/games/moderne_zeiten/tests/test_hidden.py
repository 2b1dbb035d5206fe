"""Hidden information: a seat's view never depends on others' hands or on the stack order."""

from __future__ import annotations

import random

import pytest

from services.games.moderne_zeiten import GAME
from services.games.moderne_zeiten.state import State
from services.games.moderne_zeiten.tests.helpers import act, turn_state
from tests.games.harness import start


def _midgame(seats: int, seed: int, steps: int) -> State:
    state: State = start(GAME, seats, {}, seed)[0]
    pick = random.Random(seed)
    for _ in range(steps):
        if GAME.outcome(state) is not None:
            break
        seat = min(GAME.to_act(state))
        command = pick.choice(GAME.legal_commands(state, seat))
        state, _ = act(state, seat, command.type, command.body, seed=seed)
    return state


def _other_hand(hand: tuple[int, ...]) -> tuple[int, ...]:
    """The same number of cards, all in one different industry."""
    total = sum(hand)
    target = 0 if hand[0] != total else 1
    return tuple(total if i == target else 0 for i in range(5))


@pytest.mark.parametrize(("seats", "seed", "steps"), [(3, 1, 0), (4, 2, 15), (5, 3, 40), (4, 4, 80)])
def test_a_seats_view_ignores_other_hands_and_the_stack_order(seats: int, seed: int, steps: int) -> None:
    state = _midgame(seats, seed, steps)
    for seat in [None, *range(seats)]:
        hands = tuple(h if p == seat else _other_hand(h) for p, h in enumerate(state.hands))
        stack = list(state.stack)
        random.Random(seed).shuffle(stack)
        changed = state._replace(hands=hands, stack=tuple(reversed(stack)))
        assert changed != state or not any(sum(h) for h in state.hands)
        assert GAME.view(changed, seat) == GAME.view(state, seat)


def test_a_seat_sees_its_own_hand_and_only_counts_of_others() -> None:
    state = turn_state(3, 0, hands={0: {"aviation": 2}, 1: {"telecom": 3}})
    mine = GAME.view(state, 0)
    assert mine["hand"] == {"shipping": 0, "aviation": 2, "high_rise": 0, "automobile": 0, "telecom": 0}
    assert [p["hand_count"] for p in mine["players"]] == [2, 3, 0]
    assert GAME.view(state, None)["hand"] is None
    changed = state._replace(hands=((0, 0, 0, 0, 2), *state.hands[1:]))
    assert GAME.view(changed, 0) != mine, "a seat's own hand is part of its view"


def test_drawn_cards_are_redacted_for_others() -> None:
    _, events = act(turn_state(3, 0, stack=(1, 4)), 0, "draw")
    drawn = events[0]
    assert drawn.seen_by(0)["cards"] == {"aviation": 1, "telecom": 1}
    assert drawn.seen_by(1) == {"seat": 0, "count": 2}
    assert drawn.seen_by(None) == {"seat": 0, "count": 2}


def test_views_are_json_like_for_every_seat() -> None:
    state = _midgame(5, 7, 30)
    for seat in [None, *range(5)]:
        view = GAME.view(state, seat)
        assert {"seat", "to_act", "finished", "outcome"} <= set(view)
        _json_like(view)


def _json_like(value: object) -> None:
    if isinstance(value, dict):
        assert all(isinstance(k, str) for k in value)
        for v in value.values():
            _json_like(v)
    elif isinstance(value, list):
        for v in value:
            _json_like(v)
    else:
        assert value is None or isinstance(value, str | int | bool), repr(value)
