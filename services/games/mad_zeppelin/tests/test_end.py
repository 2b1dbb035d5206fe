"""Turns, the Safe and the Hold running out, the end conditions and every tie-break."""

from __future__ import annotations

import pytest

from services.games.errors import GameOver
from services.games.mad_zeppelin import GAME
from services.games.mad_zeppelin.flow import match_ended
from services.games.mad_zeppelin.state import State
from services.games.mad_zeppelin.tests.helpers import act, first, table, types

TWO = {0: ["guard", "machinist"], 1: ["taster", "councillor"]}


def _sequences(state: State, count: int) -> tuple[State, list[str]]:
    """Let ``count`` sequences pass: play the first playable Traitor, then end; return all event types."""
    seen: list[str] = []
    for _ in range(count):
        seat = state.seat
        state, events = act(state, seat, "play_traitor",
                            traitor=GAME.legal_commands(state, seat)[0].body["traitor"])
        seen += types(events)
        if state.phase == "actions" and state.seq is not None and state.seq.seat == seat:
            state, events = act(state, seat, "end_sequence")
            seen += types(events)
    return state, seen


def test_a_game_turn_is_two_rounds_from_the_leader_then_the_leader_passes_left() -> None:
    state = table(3,
                  traitors={0: ["guard", "machinist"], 1: ["taster", "councillor"], 2: ["doctor", "lookout"]},
                  leader=1)
    order = []
    for _ in range(6):
        order.append(state.seat)
        state, seen = _sequences(state, 1)
    assert order == [1, 2, 0, 1, 2, 0]
    assert "TurnEnded" in seen and state.turn == 2 and state.leader == 2 and state.phase == "draft"


def test_scores_are_counted_at_the_end_of_the_turn_not_before() -> None:
    state = table(2, traitors=TWO, fronts={0: ["gold_cargo", "gold_cargo", "ore"]}, hands={0: ["steel"]},
                  dice=("yellow", "red", "red"))
    state, _ = act(state, 0, "play_traitor", traitor="guard")
    state, _ = act(state, 0, "throw", card="steel")  # 18 + 5 = 23 points mid-turn
    assert state.phase == "play" and GAME.outcome(state) is None
    state, seen = _sequences(state, 3)
    assert seen[-2:] == ["TurnEnded", "MatchEnded"]
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == (0,) and outcome.detail["reason"] == "target"
    assert outcome.scores == (23, 0) and GAME.to_act(state) == frozenset()
    with pytest.raises(GameOver):
        act(state, 0, "end_sequence")


def test_long_haul_needs_30_points() -> None:
    state = table(2, traitors=TWO, fronts={0: ["gold_cargo", "gold_cargo", "ore", "steel"]}, mode="long_haul")
    state, seen = _sequences(state, 4)
    assert "MatchEnded" not in seen and state.turn == 2


def _ending(fronts: dict[int, list[str]], gold: dict[int, int], journeys: int = 0) -> State:
    return table(3,
                 traitors={0: ["guard", "machinist"], 1: ["taster", "councillor"], 2: ["doctor", "lookout"]},
                 fronts=fronts, gold=gold, journeys=journeys)


def test_tie_break_most_points_wins() -> None:
    state = _ending({0: ["gold_cargo"] * 3, 1: ["gold_cargo"] * 3 + ["wood"]}, {0: 1, 1: 9})
    body = match_ended(state, "target").body
    assert body["winners"] == [1] and body["draw"] is False and body["scores"] == [21, 22, 0]


def test_tie_break_equal_points_fewest_gold_wins() -> None:
    state = _ending({0: ["gold_cargo"] * 3, 1: ["gold_cargo"] * 3}, {0: 4, 1: 2})
    assert match_ended(state, "target").body["winners"] == [1]


def test_tie_break_equal_points_and_gold_is_a_draw() -> None:
    state = _ending({0: ["gold_cargo"] * 3, 1: ["gold_cargo"] * 3, 2: ["wood"]}, {0: 2, 1: 2, 2: 0})
    body = match_ended(state, "target").body
    assert body["winners"] == [0, 1] and body["draw"] is True


def test_tie_break_at_the_end_of_a_turn_through_play() -> None:
    state = table(2, traitors=TWO, fronts={0: ["gold_cargo"] * 3, 1: ["gold_cargo"] * 3}, gold={0: 5, 1: 3})
    state, _ = _sequences(state, 4)  # Guard 1, Taster 1, Machinist 1, Councillor 2 Gold from the Search
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.detail["gold"] == [7, 6] and outcome.winners == (1,)


def test_tenth_journey_ends_the_game_straight_after_the_search_no_winner_without_the_target() -> None:
    state = _ending({0: ["gold_cargo"]}, {}, journeys=9)
    state = state._replace(hold=("journey", *[c for c in state.hold if c != "journey"]))
    state, events = act(state, 0, "play_traitor", traitor="guard")
    assert types(events) == ["TraitorPlayed", "GoldTaken", "JourneyPlaced", "MatchEnded"]
    body = first(events, "MatchEnded").body
    assert body["reason"] == "journeys" and body["winners"] == [] and body["draw"] is False
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == () and GAME.to_act(state) == frozenset()


def test_tenth_journey_end_with_the_target_reached_has_a_winner() -> None:
    state = _ending({1: ["gold_cargo"] * 3}, {}, journeys=9)
    state = state._replace(hold=("journey", *[c for c in state.hold if c != "journey"]))
    state, events = act(state, 0, "play_traitor", traitor="guard")
    assert first(events, "MatchEnded").body["winners"] == [1]


def test_an_empty_safe_pays_nothing() -> None:
    state = table(2, traitors=TWO, gold={0: 15, 1: 15}, hold_top=["journey"])
    assert state.safe == 0
    state, events = act(state, 0, "play_traitor", traitor="guard")
    assert first(events, "GoldTaken").body["gold"] == 0 and first(events, "JourneyPlaced").body["gold"] == 0
    assert state.players[0].gold == 15 and state.safe == 0


def test_the_safe_pays_what_it_has_left() -> None:
    state = table(2, traitors=TWO, gold={0: 14, 1: 15})
    state, _ = act(state, 0, "play_traitor", traitor="guard")
    state, _ = act(state, 0, "end_sequence")
    state, events = act(state, 1, "play_traitor", traitor="councillor")
    assert first(events, "GoldTaken").body["gold"] == 0  # the Guard's Search took the last coin


def test_an_empty_hold_gives_nothing() -> None:
    state = table(2, traitors=TWO)
    state = state._replace(removed=state.hold, hold=())
    state, events = act(state, 0, "play_traitor", traitor="guard")
    assert types(events) == ["TraitorPlayed", "GoldTaken"] and state.players[0].hand == ()
