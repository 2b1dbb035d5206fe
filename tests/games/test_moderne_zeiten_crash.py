"""Market crashes: the share counter, the limit, ties, the shuffle, and the option of the check's timing."""

from __future__ import annotations

import pytest

from services.games.moderne_zeiten.state import NOBODY, State
from tests.games import moderne_zeiten_helpers as h
from tests.games.moderne_zeiten_helpers import AUTO, AVI, HIGH, SHIP, TEL, act, of_type, turn_state, types

SEED_EXAMPLE_PLAYED = {
    0: {"automobile": 4},
    1: {"automobile": 4, "aviation": 3},
    2: {"automobile": 1, "shipping": 3, "telecom": 1},
    3: {"aviation": 2, "high_rise": 4, "telecom": 1},
}
THREE_PLAYED = {"automobile": 1, "aviation": 1, "shipping": 1}


def _seed_example(**options: bool) -> State:
    state = turn_state(
        4, 0, hands={0: {"automobile": 1, "aviation": 1, "shipping": 1}},
        played=SEED_EXAMPLE_PLAYED, options=options, stack=(TEL, TEL),
    )
    state = h.controller(state, automobile=1)
    assert state.counter == 23
    return state


def test_seed_example_23_in_play_3_more_move_first_then_10_automobile_removed_counter_16() -> None:
    state, events = act(_seed_example(), 0, "play", {"cards": THREE_PLAYED})
    assert types(events) == [
        "CardsPlayed", "ControlTaken", "ZeppelinMoved", "MarketCrashed", "StackShuffled", "TurnEnded",
    ]
    assert of_type(events, "ControlTaken")[0].body["industry"] == "automobile"
    assert of_type(events, "ZeppelinMoved")[0].body["space"] == 4  # New Orleans, Automobile
    assert of_type(events, "MarketCrashed")[0].body == {
        "industries": ["automobile"], "removed": 10, "counter": 16,
    }
    assert state.counter == 16
    assert all(row[AUTO] == 0 for row in state.played)
    assert sorted(state.stack) == sorted((TEL, TEL) + (AUTO,) * 10)


def test_crash_after_move_off_checks_right_after_the_play_before_the_move() -> None:
    state, events = act(_seed_example(crash_after_move=False), 0, "play",
                        {"cards": THREE_PLAYED})
    assert types(events) == ["CardsPlayed", "ControlTaken", "MarketCrashed", "StackShuffled", "TurnEnded"]
    assert state.position[0] == 0, "the majority was crashed away before the move"


def test_crash_shuffle_is_recorded_and_visible_to_nobody() -> None:
    _, events = act(_seed_example(), 0, "play", {"cards": THREE_PLAYED})
    shuffled = of_type(events, "StackShuffled")[0]
    assert shuffled.visible_to == ()
    assert shuffled.redacted == {"count": 12}
    assert sorted(shuffled.body["order"]) == sorted(["telecom"] * 2 + ["automobile"] * 10)


def test_market_crash_tie_removes_all_industries_with_the_greatest_count() -> None:
    played = {
        0: {"automobile": 5, "high_rise": 5, "shipping": 3},
        1: {"automobile": 5, "high_rise": 5, "aviation": 2},
    }
    state = turn_state(4, 2, hands={2: {"telecom": 1}}, played=played)
    state = h.controller(state, automobile=0, high_rise=1)
    assert state.counter == 25
    state, events = act(state, 2, "play", {"cards": {"telecom": 1}})
    assert of_type(events, "MarketCrashed")[0].body == {
        "industries": ["high_rise", "automobile"], "removed": 20, "counter": 6,
    }
    assert state.controller[AUTO] == NOBODY and state.controller[HIGH] == NOBODY
    assert state.controller[TEL] == 2 and state.controller[SHIP] == 0


def test_seed_example_crash_removes_the_10_high_rise_of_3_4_5_10_6() -> None:
    played = {0: {"aviation": 3, "shipping": 4, "automobile": 5},
              1: {"high_rise": 10}, 2: {"telecom": 6}}
    state = turn_state(4, 3, hands={3: {"telecom": 1}}, played=played)
    _, events = act(state, 3, "play", {"cards": {"telecom": 1}})
    assert of_type(events, "MarketCrashed")[0].body["industries"] == ["high_rise"]


@pytest.mark.parametrize(("seats", "limit"), [(3, 21), (4, 25), (5, 25)])
def test_crash_when_counter_above_21_for_3_players_25_for_4_or_5(seats: int, limit: int) -> None:
    played = {1: {"aviation": limit - 1}}
    at_limit = turn_state(seats, 0, hands={0: {"shipping": 2}}, played=played)
    _, events = act(at_limit, 0, "play", {"cards": {"shipping": 1}})
    assert not of_type(events, "MarketCrashed"), f"{limit} is not above {limit}"
    _, events = act(at_limit, 0, "play", {"cards": {"shipping": 2}})
    assert of_type(events, "MarketCrashed")[0].body["industries"] == ["aviation"]


def test_after_a_crash_nobody_controls_until_someone_has_cards_again() -> None:
    state = turn_state(3, 0, hands={0: {"shipping": 1}, 1: {"aviation": 1}}, played={2: {"aviation": 21}})
    state, _ = act(state, 0, "play", {"cards": {"shipping": 1}})
    assert state.controller[AVI] == NOBODY and state.counter == 1
    state, events = act(state, 1, "play", {"cards": {"aviation": 1}})
    assert of_type(events, "ControlTaken")[0].body == {
        "seat": 1, "industry": "aviation", "count": 1, "previous": None,
    }


def test_the_round_continues_after_a_crash() -> None:
    state, _ = act(_seed_example(), 0, "play", {"cards": THREE_PLAYED})
    assert state.current == 1 and state.round == 1


def test_crash_on_the_turn_that_ends_the_game_is_ignored() -> None:
    state = turn_state(4, 0, hands={0: {"telecom": 1}}, played={0: {"telecom": 2}, 1: {"aviation": 23}},
                       position=(26, 0, 0, 0))
    state, events = act(state, 0, "play", {"cards": {"telecom": 1}})
    assert events[-1].body == {"seat": 0, "choices": ["finish", None]}
    ended, events = act(state, 0, "move", {"to": "finish"})
    assert types(events) == ["ZeppelinFinished", "GameEnded"]
    assert ended.counter == 26
    _, events = act(state, 0, "move", {"to": None})
    assert of_type(events, "MarketCrashed"), "staying, the crash happens"
