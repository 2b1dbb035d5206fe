"""Market crashes: the share counter, the limit, ties, the shuffle, and the option of the check's timing."""

from __future__ import annotations

import itertools
import random

import pytest

from services.games.base import Command, Event
from services.games.errors import IllegalMove
from services.games.moderne_zeiten import GAME
from services.games.moderne_zeiten.state import NOBODY, Phase, State
from services.games.moderne_zeiten.tests import helpers as h
from services.games.moderne_zeiten.tests.helpers import AUTO, AVI, HIGH, SHIP, TEL, act, of_type, turn_state, types

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


BOTH_TIMINGS = pytest.mark.parametrize("crash_after_move", [True, False], ids=["after_move", "before_move"])


@BOTH_TIMINGS
def test_crash_on_the_turn_that_ends_the_game_is_ignored(crash_after_move: bool) -> None:
    state = turn_state(4, 0, hands={0: {"telecom": 1}}, played={0: {"telecom": 2}, 1: {"aviation": 23}},
                       position=(26, 0, 0, 0), options={"crash_after_move": crash_after_move})
    state, events = act(state, 0, "play", {"cards": {"telecom": 1}})
    assert events[-1].body == {"seat": 0, "choices": ["finish", None]}
    assert not of_type(events, "MarketCrashed"), "he may still end the game: no crash yet"
    ended, events = act(state, 0, "move", {"to": "finish"})
    assert types(events) == ["ZeppelinFinished", "GameEnded"]
    assert ended.counter == 26
    _, events = act(state, 0, "move", {"to": None})
    assert of_type(events, "MarketCrashed"), "staying, the crash happens"


def _seed_example_at_the_end(crash_after_move: bool) -> State:
    """The seed's crash example (23 in play, 3 more played taking Automobile, 10 Automobile the most in
    play) with the player past the last Automobile space (28), so he may end the game."""
    return _seed_example(crash_after_move=crash_after_move)._replace(position=(29, 0, 0, 0))


@BOTH_TIMINGS
def test_market_crashes_caused_by_cards_he_plays_on_the_turn_he_ends_the_game_are_ignored(
    crash_after_move: bool,
) -> None:
    # Seed: "Market Crashes caused by any cards this player plays on the turn when he ends the game are
    # ignored." Rules file: "... is ignored, whatever the `crash_after_move` option says (the player who
    # ends the game is never robbed of his move or his majority by his own play)."
    state, events = act(_seed_example_at_the_end(crash_after_move), 0, "play", {"cards": THREE_PLAYED})
    assert types(events) == ["CardsPlayed", "ControlTaken", "MoveAwaited"]
    assert events[-1].body == {"seat": 0, "choices": ["finish", None]}
    ended, events = act(state, 0, "move", {"to": "finish"})
    assert types(events) == ["ZeppelinFinished", "GameEnded"]
    assert ended.counter == 26, "26 above 25, yet no crash"
    assert ended.controller[AUTO] == 0 and ended.played[0][AUTO] == 5, "his Automobile majority stands"
    assert events[-1].body["detail"]["breakdown"][0]["industries"] == 1


def test_staying_instead_of_ending_the_game_the_crash_happens_before_the_move_when_crash_after_move_off() -> None:
    state, _ = act(_seed_example_at_the_end(False), 0, "play", {"cards": THREE_PLAYED})
    state, events = act(state, 0, "move", {"to": None})
    assert types(events) == ["MarketCrashed", "StackShuffled", "MoveDeclined", "TurnEnded"]
    assert of_type(events, "MarketCrashed")[0].body == {
        "industries": ["automobile"], "removed": 10, "counter": 16,
    }
    assert state.counter == 16 and state.controller[AUTO] == NOBODY and state.current == 1


def test_staying_instead_of_ending_the_game_the_crash_happens_after_the_move_by_default() -> None:
    state, _ = act(_seed_example_at_the_end(True), 0, "play", {"cards": THREE_PLAYED})
    state, events = act(state, 0, "move", {"to": None})
    assert types(events) == ["MoveDeclined", "MarketCrashed", "StackShuffled", "TurnEnded"]
    assert state.counter == 16 and state.current == 1


def _finish_only_after_the_crash(crash_after_move: bool) -> State:
    """Seat 0 controls Telecom (no space of it ahead of 26) and Automobile (27 and 28 ahead); playing one
    more Automobile takes the counter to 26 and makes Automobile (6) the most in play."""
    played = {0: {"telecom": 5, "automobile": 5}, 1: {"aviation": 5}, 2: {"shipping": 5}, 3: {"high_rise": 5}}
    return turn_state(4, 0, hands={0: {"automobile": 1}}, played=played, position=(26, 0, 0, 0),
                      options={"crash_after_move": crash_after_move})


def test_crash_after_move_on_he_moves_to_the_next_automobile_space_then_the_crash() -> None:
    state, events = act(_finish_only_after_the_crash(True), 0, "play", {"cards": {"automobile": 1}})
    assert types(events) == ["CardsPlayed", "ZeppelinMoved", "MarketCrashed", "StackShuffled", "TurnEnded"]
    assert state.position[0] == 27


def test_crash_after_move_off_finish_is_judged_without_the_crash_so_a_crash_opening_the_way_stands() -> None:
    # Reading: the crash of a game-ending turn is ignored, so Finish must be open without it; here the
    # crash alone removes the Automobile space ahead, so it stands and he may not finish this turn.
    state, events = act(_finish_only_after_the_crash(False), 0, "play", {"cards": {"automobile": 1}})
    assert types(events) == ["CardsPlayed", "MarketCrashed", "StackShuffled", "TurnEnded"]
    assert state.position[0] == 26 and state.counter == 20 and state.current == 1


# --- one crash check a turn, in every option combination ---
# Seed, B.3 and its note: the crash is checked "after a player has played Share cards and had an opportunity
# to move" (the rules file: "after a turn's play and move"), once; it removes "all Share cards for the
# industry with the greatest number of Shares in play" (all of them on a tie). B.2: the Zeppelin moves to a
# space "of an industry in which he currently has majority control", and after a crash nobody controls the
# industries it removed (the rules file, Control).

EVERY_OPTION_SET = pytest.mark.parametrize("options", [
    {"forced_move": f, "move_needs_play": m, "crash_after_move": c}
    for f, m, c in itertools.product((True, False), repeat=3)
], ids=lambda o: "-".join(f"{k}={'on' if v else 'off'}" for k, v in o.items()))


def _turn(state: State, seat: int, cards: dict[str, int], to: str | None = None) -> tuple[State, list[Event]]:
    """The seat's whole turn: the play, then, when a move is awaited, the move to ``to``."""
    state, events = act(state, seat, "play", {"cards": cards})
    if state.phase == Phase.MOVING:
        assert any(c.type == "move" and c.body == {"to": to} for c in GAME.legal(state, seat)), (to, state.choices)
        state, more = act(state, seat, "move", {"to": to})
        events += more
    assert state.phase != Phase.MOVING
    return state, events


def _still_over_the_limit(options: dict[str, bool]) -> State:
    """Seat 0 controls Shipping (7) and Aviation (6); High Rise (9) has the most cards in play, 34 in all.
    Playing one Shipping and one Aviation takes the counter to 36: the crash removes the 9 High Rise and
    leaves 27, still above 25 (the industry with the most held fewer than the excess of 11). Shipping (8)
    then has the most: a second crash would take it away."""
    played = {0: {"shipping": 7, "aviation": 6}, 1: {"high_rise": 9}, 2: {"automobile": 6}, 3: {"telecom": 6}}
    state = turn_state(4, 0, hands={0: {"shipping": 1, "aviation": 1}, 1: {"shipping": 1}}, played=played,
                       options=options, stack=(TEL,) * 6)
    assert state.counter == 34 and state.controller[SHIP] == 0 and state.controller[AVI] == 0
    return state


@EVERY_OPTION_SET
def test_a_crash_leaving_the_counter_above_the_limit_is_the_turns_only_one(options: dict[str, bool]) -> None:
    moving, _ = act(_still_over_the_limit(options), 0, "play", {"cards": {"shipping": 1, "aviation": 1}})
    offered = [c.body["to"] for c in GAME.legal(moving, 0)]
    assert offered == ["shipping", "aviation"] + ([] if options["forced_move"] else [None])
    assert all(moving.controller[h.INDUSTRIES.index(to)] == 0 for to in offered if to), "moves on his industries"
    state, events = _turn(_still_over_the_limit(options), 0, {"shipping": 1, "aviation": 1}, "shipping")
    assert [e.body for e in of_type(events, "MarketCrashed")] == [
        {"industries": ["high_rise"], "removed": 9, "counter": 27},
    ], "one crash a turn, though 27 is still above 25"
    assert len(of_type(events, "StackShuffled")) == 1
    moved = of_type(events, "ZeppelinMoved")
    assert [m.body["industry"] for m in moved] == ["shipping"] and state.position[0] == 1
    assert state.counter == 27 and state.played[0][SHIP] == 8 and state.controller[SHIP] == 0
    assert state.claims[0] == 0, "he claimed the Shipping space of an industry he still controls"
    crash_at = types(events).index("MarketCrashed")
    move_at = types(events).index("ZeppelinMoved")
    assert (move_at < crash_at) == options["crash_after_move"]
    assert types(events)[-1] == "TurnEnded" and state.current == 1


@EVERY_OPTION_SET
def test_the_counter_left_above_the_limit_is_checked_again_after_the_next_play(options: dict[str, bool]) -> None:
    state, _ = _turn(_still_over_the_limit(options), 0, {"shipping": 1, "aviation": 1}, "shipping")
    state, events = _turn(state, 1, {"shipping": 1}, None)
    assert [e.body for e in of_type(events, "MarketCrashed")] == [
        {"industries": ["shipping"], "removed": 9, "counter": 19},
    ]
    assert state.counter == 19 and state.controller[SHIP] == NOBODY


@EVERY_OPTION_SET
def test_after_a_crash_at_the_play_he_moves_only_on_an_industry_he_still_controls(options: dict[str, bool]) -> None:
    """A tie for the most cards: Automobile (his, 6 after his play) and High Rise (6) both go back; with the
    check before the move he may not move on Automobile any more; with it after, he may, and then the crash."""
    played = {0: {"automobile": 5, "shipping": 3}, 1: {"high_rise": 6, "aviation": 4}, 2: {"telecom": 5},
              3: {"aviation": 1}}
    state = turn_state(4, 0, hands={0: {"automobile": 1, "shipping": 1}}, played=played, options=options,
                       stack=(TEL,) * 4)
    assert state.counter == 24
    state, events = act(state, 0, "play", {"cards": {"automobile": 1, "shipping": 1}})
    after_move = options["crash_after_move"]
    offered = [c.body["to"] for c in GAME.legal(state, 0) if c.type == "move"]
    if after_move:
        assert offered == ["shipping", "automobile"] + ([] if options["forced_move"] else [None])
        state, more = act(state, 0, "move", {"to": "automobile"})
        events += more
        assert of_type(events, "ZeppelinMoved")[0].body["space"] == 4  # New Orleans, Automobile, then the crash
    else:
        assert "automobile" not in offered and state.controller[AUTO] == NOBODY
        if offered:  # forced_move off: Shipping or staying
            assert offered == ["shipping", None]
            with pytest.raises(IllegalMove):
                GAME.decide(state, Command(0, "move", {"to": "automobile"}), random.Random(1))
            state, more = act(state, 0, "move", {"to": "shipping"})
            events += more
        assert of_type(events, "ZeppelinMoved")[0].body["space"] == 1  # New Orleans, Shipping
    assert [e.body for e in of_type(events, "MarketCrashed")] == [
        {"industries": ["high_rise", "automobile"], "removed": 12, "counter": 14},
    ]
    assert state.controller[AUTO] == NOBODY and state.controller[HIGH] == NOBODY and state.controller[SHIP] == 0
    assert types(events)[-1] == "TurnEnded"


@EVERY_OPTION_SET
def test_no_crash_on_the_turn_that_ends_the_game_in_any_option_combination(options: dict[str, bool]) -> None:
    state = turn_state(4, 0, hands={0: {"telecom": 1}}, played={0: {"telecom": 2}, 1: {"aviation": 23}},
                       position=(26, 0, 0, 0), options=options)
    state, events = act(state, 0, "play", {"cards": {"telecom": 1}})
    assert types(events) == ["CardsPlayed", "MoveAwaited"] and events[-1].body["choices"] == ["finish", None]
    ended, events = act(state, 0, "move", {"to": "finish"})
    assert types(events) == ["ZeppelinFinished", "GameEnded"]
    assert ended.counter == 26 and ended.played[1][AVI] == 23, "26 above 25, yet no crash"
    stayed, events = act(state, 0, "move", {"to": None})
    assert len(of_type(events, "MarketCrashed")) == 1, "staying, the one crash of the turn happens"
    assert stayed.counter == 3 and stayed.phase == Phase.TURN and stayed.current == 1


@EVERY_OPTION_SET
def test_ending_the_game_with_the_counter_left_above_the_limit_by_an_earlier_crash(options: dict[str, bool]) -> None:
    """An earlier crash left 27 cards in play (the first test's turn); seat 1 ends the game with his play (or,
    without the Essen rule, with no play at all): the crash of that turn is ignored as well."""
    played = {0: {"shipping": 8, "aviation": 7}, 1: {"telecom": 6}, 2: {"automobile": 6}}
    state = turn_state(4, 1, hands={1: {"telecom": 1}}, played=played, position=(1, 26, 0, 0), options=options)
    state = h.claim(state, 1, 0)
    assert state.counter == 27 and state.controller[TEL] == 1
    bodies = [{"cards": {"telecom": 1}}] + ([] if options["move_needs_play"] else [{"cards": {}}])
    for body in bodies:
        moving, events = act(state, 1, "play", body)
        assert not of_type(events, "MarketCrashed") and events[-1].type == "MoveAwaited"
        assert events[-1].body["choices"] == (["finish", None] if body["cards"] else ["finish"])
        ended, events = act(moving, 1, "move", {"to": "finish"})
        assert types(events) == ["ZeppelinFinished", "GameEnded"]
        assert ended.counter == 27 + len(body["cards"]), "above 25, yet no crash"
