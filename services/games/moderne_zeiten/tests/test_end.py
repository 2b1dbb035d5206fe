"""End of game (Finish) and scoring."""

from __future__ import annotations

import random
from typing import Any

import pytest

from services.games.base import Command
from services.games.errors import GameOver
from services.games.moderne_zeiten import GAME
from services.games.moderne_zeiten.scoring import score
from services.games.moderne_zeiten.state import Phase, State
from services.games.moderne_zeiten.tests import helpers as h
from services.games.moderne_zeiten.tests.helpers import SHIP, act, of_type, turn_state, types

PAST_TELECOM = 26  # the last Telecommunications space is 25


def test_finish_when_no_unclaimed_space_of_a_controlled_industry_is_ahead() -> None:
    state = turn_state(4, 0, hands={0: {"telecom": 1}}, position=(PAST_TELECOM, 0, 0, 0))
    state, events = act(state, 0, "play", {"cards": {"telecom": 1}})
    assert events[-1].type == "MoveAwaited" and events[-1].body["choices"] == ["finish", None]
    state, events = act(state, 0, "move", {"to": "finish"})
    assert types(events) == ["ZeppelinFinished", "GameEnded"]
    assert state.phase == Phase.OVER and state.ender == 0 and state.position[0] == 31
    assert GAME.to_act(state) == frozenset()
    assert GAME.outcome(state) is not None


def test_finish_when_all_controlled_spaces_ahead_are_claimed() -> None:
    state = turn_state(3, 0, hands={0: {"telecom": 1}}, position=(20, 0, 0))
    state = h.claim(h.claim(state, 21, 1), 25, 2)
    state, events = act(state, 0, "play", {"cards": {"telecom": 1}})
    assert events[-1].body["choices"] == ["finish", None]


def test_no_finish_while_a_controlled_space_is_ahead() -> None:
    state = turn_state(4, 0, hands={0: {"telecom": 1}}, position=(20, 0, 0, 0))
    state, events = act(state, 0, "play", {"cards": {"telecom": 1}})
    assert of_type(events, "ZeppelinMoved")[0].body["space"] == 21
    assert state.phase == Phase.TURN


def test_finish_needs_control_of_at_least_one_industry() -> None:
    state = turn_state(4, 0, hands={0: {"telecom": 1}}, played={1: {"telecom": 4}},
                       position=(PAST_TELECOM, 0, 0, 0))
    state, events = act(state, 0, "play", {"cards": {"telecom": 1}})
    assert types(events) == ["CardsPlayed", "TurnEnded"]


def test_finish_needs_a_card_played_this_turn_when_move_needs_play() -> None:
    state = turn_state(4, 0, played={0: {"telecom": 2}}, position=(PAST_TELECOM, 0, 0, 0), stack=(SHIP,))
    moves = [c for c in GAME.legal_commands(state, 0) if c.type != "draw"]
    assert moves == [], "no card in hand: only drawing, never Finish"


def test_finish_after_playing_nothing_when_move_needs_play_is_off() -> None:
    state = turn_state(4, 0, played={0: {"telecom": 2}}, position=(PAST_TELECOM, 0, 0, 0),
                       options={"move_needs_play": False})
    state, events = act(state, 0, "play", {"cards": {}})
    assert events[-1].body == {"seat": 0, "choices": ["finish"]}
    state, _ = act(state, 0, "move", {"to": "finish"})
    assert state.phase == Phase.OVER


def test_a_player_without_big_markers_may_still_end_the_game() -> None:
    state = turn_state(4, 0, hands={0: {"telecom": 1}}, position=(PAST_TELECOM, 0, 0, 0),
                       big_left=(0, 10, 10, 10))
    state, _ = act(state, 0, "play", {"cards": {"telecom": 1}})
    state, _ = act(state, 0, "move", {"to": "finish"})
    assert state.phase == Phase.OVER


def test_the_game_ends_at_once_and_accepts_no_more_commands() -> None:
    state = turn_state(4, 0, hands={0: {"telecom": 1}}, position=(PAST_TELECOM, 0, 0, 0))
    state, _ = act(state, 0, "play", {"cards": {"telecom": 1}})
    state, events = act(state, 0, "move", {"to": "finish"})
    assert "TurnEnded" not in types(events)
    with pytest.raises(GameOver, match="the match is over"):
        GAME.decide(state, Command(1, "draw"), random.Random(0))
    assert GAME.legal_commands(state, 1) == []


@pytest.mark.parametrize("crash_after_move", [True, False], ids=["after_move", "before_move"])
def test_the_player_who_ends_the_game_is_never_robbed_of_his_move_or_majority_by_his_own_play(
    crash_after_move: bool,
) -> None:
    # 25 in play (4 players); his 1 more Telecom makes 26, Telecom (11) the most in play: a crash would
    # take his only majority and with it the Finish. Ending the game, the crash is ignored.
    played = {0: {"telecom": 10}, 1: {"aviation": 5}, 2: {"shipping": 5}, 3: {"high_rise": 5}}
    state = turn_state(4, 0, hands={0: {"telecom": 1}}, played=played, position=(PAST_TELECOM, 0, 0, 0),
                       options={"crash_after_move": crash_after_move})
    state, events = act(state, 0, "play", {"cards": {"telecom": 1}})
    assert events[-1].body == {"seat": 0, "choices": ["finish", None]}
    state, events = act(state, 0, "move", {"to": "finish"})
    assert types(events) == ["ZeppelinFinished", "GameEnded"]
    assert state.phase == Phase.OVER and state.position[0] == 31 and state.counter == 26
    breakdown = score(state).detail["breakdown"][0]
    assert (breakdown["industries"], breakdown["ender"]) == (1, 1)


def test_the_stack_running_out_does_not_end_the_game() -> None:
    state, _ = act(turn_state(3, 0, stack=()), 0, "draw")
    assert GAME.outcome(state) is None and state.current == 1


def test_game_ended_event_carries_the_outcome() -> None:
    state = turn_state(4, 0, hands={0: {"telecom": 1}}, position=(PAST_TELECOM, 0, 0, 0))
    state, _ = act(state, 0, "play", {"cards": {"telecom": 1}})
    state, events = act(state, 0, "move", {"to": "finish"})
    outcome = GAME.outcome(state)
    assert outcome is not None and events[-1].body == outcome.as_dict()


# --- scoring ---


def _over(seats: int = 4, **changes: Any) -> State:
    return turn_state(seats, 0, **changes)._replace(phase=Phase.OVER)


def _part(state: State, key: str) -> list[int]:
    return [row[key] for row in score(state).detail["breakdown"]]


def test_most_money_scores_3() -> None:
    assert _part(_over(3, money=(20, 15, 10)), "money") == [3, 0, 0]


def test_most_money_tied_players_score_1_each() -> None:
    assert _part(_over(3, money=(20, 20, 5)), "money") == [1, 1, 0]


def test_each_industry_scores_1_for_its_controller() -> None:
    state = _over(3, played={0: {"aviation": 3, "telecom": 1}, 1: {"aviation": 2}})
    assert _part(state, "industries") == [2, 0, 0]


def test_industry_equal_greatest_count_at_the_end_scores_1_each() -> None:
    state = _over(3, played={0: {"aviation": 3}, 1: {"aviation": 3}, 2: {"aviation": 1}})
    assert _part(state, "industries") == [1, 1, 0]
    assert score(state).detail["majorities"]["aviation"] == [0, 1]


def test_the_player_who_ended_the_game_scores_1() -> None:
    assert _part(_over(3, ender=2), "ender") == [0, 0, 1]


def _claimed(state: State, claims: dict[int, int]) -> State:
    for space, seat in claims.items():
        state = h.claim(state, space, seat)
    return state


def test_row_most_small_markers_scores_the_city_value() -> None:
    # Paris spaces: 7, 10, 16, 22, 28. Seat 0 two, seats 1 and 2 one each.
    state = _claimed(_over(4), {7: 0, 10: 0, 16: 1, 22: 2})
    assert score(state).detail["city_rows"]["paris"] == [4, 0, 0, 0]


def test_row_or_column_tie_scores_1_each() -> None:
    # Berlin: 3, 6, 15 one each for seats 0, 1, 3 (the seed example's black, blue, green).
    state = _claimed(_over(4), {3: 0, 6: 1, 15: 3})
    assert score(state).detail["city_rows"]["berlin"] == [1, 1, 0, 1]
    # Shipping column: 6 (seat 1) and 11 (seat 0).
    state = _claimed(_over(4), {6: 1, 11: 0})
    assert score(state).detail["industry_columns"]["shipping"] == [1, 1, 0, 0]


def test_column_most_small_markers_scores_the_industry_value() -> None:
    state = _claimed(_over(3), {2: 1, 7: 1, 12: 0})
    assert score(state).detail["industry_columns"]["telecom"] == [0, 5, 0]


def test_empty_row_or_column_scores_nothing() -> None:
    state = _over(3)
    detail = score(state).detail
    assert all(pts == [0, 0, 0] for pts in detail["city_rows"].values())
    assert all(pts == [0, 0, 0] for pts in detail["industry_columns"].values())


def test_highest_total_wins() -> None:
    state = _claimed(_over(3, money=(15, 15, 15)), {30: 2})
    outcome = score(state)
    assert outcome.scores == (1, 1, 1 + 5 + 3)
    assert outcome.winners == (2,)


def test_tie_on_points_goes_to_most_money() -> None:
    # Seat 0 richest (3), seat 1 has New Orleans+Shipping on space 1 (2+3); seat 0 also ends (1) + 1 industry.
    state = _claimed(_over(3, money=(16, 15, 14), ender=0, played={0: {"aviation": 1}}), {1: 1})
    outcome = score(state)
    assert outcome.scores[0] == outcome.scores[1] == 5
    assert outcome.winners == (0,)


def test_tie_on_points_and_money_is_a_shared_win() -> None:
    # Paris/Telecom for seat 0, London/Telecom for seat 1: money tie 1 + city 4 + column tie 1 each.
    state = _claimed(_over(3, money=(16, 16, 13)), {7: 0, 17: 1})
    outcome = score(state)
    assert outcome.scores == (6, 6, 0)
    assert outcome.winners == (0, 1)


def test_outcome_detail_carries_the_breakdown_per_player() -> None:
    state = _claimed(_over(3, money=(20, 10, 15), ender=1, played={1: {"telecom": 2}}), {2: 1})
    breakdown = score(state).detail["breakdown"]
    assert breakdown[1] == {
        "seat": 1, "money": 0, "industries": 1, "ender": 1, "cities": 3, "industry_columns": 5,
        "total": 10,
    }
    assert breakdown[0]["money"] == 3 and breakdown[0]["total"] == 3
