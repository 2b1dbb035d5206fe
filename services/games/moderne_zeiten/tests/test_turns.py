"""Turns: draw or play, control of industries, and the Zeppelin's move."""

from __future__ import annotations

import random

import pytest

from services.games.base import Command
from services.games.errors import IllegalMove
from services.games.moderne_zeiten import GAME
from services.games.moderne_zeiten.scoring import score
from services.games.moderne_zeiten.state import NOBODY, Phase
from services.games.moderne_zeiten.tests import helpers as h
from services.games.moderne_zeiten.tests.helpers import AUTO, AVI, HIGH, SHIP, TEL, act, of_type, turn_state, types
from services.games.moderne_zeiten.views import view


def test_draw_takes_two_cards_and_ends_the_turn() -> None:
    state = turn_state(4, 1, stack=(TEL, AVI, SHIP))
    state, events = act(state, 1, "draw")
    assert types(events) == ["CardsDrawn", "TurnEnded"]
    drawn = events[0]
    assert drawn.body == {"seat": 1, "cards": {"aviation": 1, "telecom": 1}, "count": 2}
    assert drawn.visible_to == (1,) and drawn.redacted == {"seat": 1, "count": 2}
    assert state.hands[1] == (0, 1, 0, 0, 1) and state.stack == (SHIP,)
    assert state.current == 2


def test_draw_takes_fewer_when_the_stack_is_short() -> None:
    state, events = act(turn_state(3, 0, stack=(HIGH,)), 0, "draw")
    assert events[0].body["count"] == 1 and state.hands[0] == (0, 0, 1, 0, 0) and state.stack == ()


def test_draw_from_an_empty_stack_gives_nothing_and_the_turn_ends() -> None:
    state, events = act(turn_state(3, 0, stack=()), 0, "draw")
    assert events[0].body == {"seat": 0, "cards": {}, "count": 0}
    assert state.current == 1 and state.phase == Phase.TURN


def test_turns_go_left_from_the_start_player_then_a_new_auction() -> None:
    state = turn_state(4, 2, stack=(SHIP,) * 40)
    order = []
    for _ in range(4):
        order.append(state.current)
        state, events = act(state, state.current, "draw")
    assert order == [2, 3, 0, 1]
    assert types(events)[-3:-1] == ["RoundStarted", "DieRolled"]
    assert state.phase == Phase.AUCTION and state.round == 2 and state.bidder == 2


def test_play_puts_cards_in_front_and_raises_the_share_counter() -> None:
    state = turn_state(4, 0, hands={0: {"automobile": 3, "telecom": 2, "aviation": 1}})
    state, events = act(state, 0, "play", {"cards": {"automobile": 2, "telecom": 1}})
    played = events[0]
    assert played.body == {"seat": 0, "cards": {"automobile": 2, "telecom": 1}, "count": 3, "counter": 3}
    assert state.hands[0] == (0, 1, 0, 1, 1) and state.played[0] == (0, 0, 0, 2, 1)
    assert view(state, None)["counter"] == 3


def test_play_needs_at_least_one_card_when_move_needs_play() -> None:
    state = turn_state(4, 0, hands={0: {"automobile": 3}})
    with pytest.raises(IllegalMove, match="play at least one card"):
        GAME.decide(state, Command(0, "play", {"cards": {}}), random.Random(0))


def test_cannot_play_cards_not_in_hand() -> None:
    state = turn_state(4, 0, hands={0: {"aviation": 1}})
    with pytest.raises(IllegalMove, match="you have 1 aviation in hand, not 3"):
        GAME.decide(state, Command(0, "play", {"cards": {"aviation": 3}}), random.Random(0))
    with pytest.raises(IllegalMove, match="you have 0 shipping in hand, not 1"):
        GAME.decide(state, Command(0, "play", {"cards": {"shipping": 1}}), random.Random(0))


# --- control ---


def test_more_cards_than_any_other_player_takes_control() -> None:
    state = turn_state(4, 1, hands={1: {"aviation": 3}}, played={0: {"aviation": 2}, 2: {"aviation": 1}})
    assert state.controller[AVI] == 0
    state, events = act(state, 1, "play", {"cards": {"aviation": 3}})
    taken = of_type(events, "ControlTaken")[0].body
    assert taken == {"seat": 1, "industry": "aviation", "count": 3, "previous": 0}
    assert state.controller[AVI] == 1


def test_equal_count_never_takes_control_away() -> None:
    state = turn_state(4, 1, hands={1: {"aviation": 2}}, played={0: {"aviation": 2}})
    state, events = act(state, 1, "play", {"cards": {"aviation": 2}})
    assert not of_type(events, "ControlTaken")
    assert state.controller[AVI] == 0


def test_seed_example_b_must_play_at_least_4_to_overtake_3_and_c_with_5_takes_it() -> None:
    a, b, c = 0, 1, 2
    state = turn_state(4, a, hands={a: {"automobile": 3, "telecom": 2, "aviation": 1, "shipping": 1},
                                    b: {"automobile": 4}, c: {"automobile": 5}},
                       stack=(SHIP,) * 10)
    state, events = act(state, a, "play",
                        {"cards": {"automobile": 3, "telecom": 2, "aviation": 1, "shipping": 1}})
    assert {e.body["industry"] for e in of_type(events, "ControlTaken")} == {
        "automobile", "telecom", "aviation", "shipping",
    }
    if state.phase == Phase.MOVING:
        state, _ = act(state, a, "move", {"to": "automobile"})
    three = GAME.decide(state, Command(b, "play", {"cards": {"automobile": 3}}), random.Random(0))
    assert not of_type(three, "ControlTaken"), "3 against 3 does not overtake"
    state, events = act(state, b, "play", {"cards": {"automobile": 4}})
    assert of_type(events, "ControlTaken")[0].body["previous"] == a
    assert state.controller[AUTO] == b
    state, events = act(state, c, "play", {"cards": {"automobile": 5}})
    assert state.controller[AUTO] == c


def test_controller_is_tracked_per_industry_in_the_state() -> None:
    state = turn_state(3, 0, hands={0: {"shipping": 1, "telecom": 1}})
    state, _ = act(state, 0, "play", {"cards": {"shipping": 1, "telecom": 1}})
    assert state.controller == (0, NOBODY, NOBODY, NOBODY, 0)
    assert view(state, 1)["controller"]["telecom"] == 0


# --- movement ---


def test_seed_example_aviation_majority_moves_to_the_first_unclaimed_aviation_space_berlin() -> None:
    state = turn_state(4, 0, hands={0: {"aviation": 1}})
    state, events = act(state, 0, "play", {"cards": {"aviation": 1}})
    moved = of_type(events, "ZeppelinMoved")[0].body
    assert moved == {"seat": 0, "industry": "aviation", "city": "berlin", "space": 3, "from": 0}
    assert state.position[0] == 3 and state.claims[2] == 0


def test_claimed_spaces_are_jumped() -> None:
    state = h.claim(turn_state(4, 0, hands={0: {"aviation": 1}}), 3, 2)
    state, events = act(state, 0, "play", {"cards": {"aviation": 1}})
    assert of_type(events, "ZeppelinMoved")[0].body["space"] == 8


def test_move_is_only_forward_from_the_zeppelin() -> None:
    state = turn_state(4, 0, hands={0: {"aviation": 1}}, position=(10, 0, 0, 0))
    state, events = act(state, 0, "play", {"cards": {"aviation": 1}})
    assert of_type(events, "ZeppelinMoved")[0].body == {
        "seat": 0, "industry": "aviation", "city": "new_orleans", "space": 13, "from": 10,
    }


def test_seed_example_chicago_telecom_claim_puts_a_small_marker_on_chicago_row_telecom_column() -> None:
    state = turn_state(4, 0, hands={0: {"telecom": 1}})
    state, _ = act(state, 0, "play", {"cards": {"telecom": 1}})
    seen = view(state, 3)
    assert seen["players"][0]["big_markers"] == 9 and seen["players"][0]["small_markers"] == 9
    assert seen["track"][1] == {"space": 2, "city": "chicago", "industry": "telecom", "claimed_by": 0}
    table = score(state).detail
    assert table["city_rows"]["chicago"] == [3, 0, 0, 0]
    assert table["industry_columns"]["telecom"] == [5, 0, 0, 0]


def test_no_control_no_move() -> None:
    state = turn_state(4, 1, hands={1: {"aviation": 1}}, played={0: {"aviation": 3}})
    state, events = act(state, 1, "play", {"cards": {"aviation": 1}})
    assert types(events) == ["CardsPlayed", "TurnEnded"]
    assert state.position[1] == 0


def test_an_older_majority_moves_the_zeppelin_when_any_card_is_played() -> None:
    state = turn_state(4, 0, hands={0: {"shipping": 1}}, played={0: {"telecom": 2}, 1: {"shipping": 4}})
    state, events = act(state, 0, "play", {"cards": {"shipping": 1}})
    assert of_type(events, "ZeppelinMoved")[0].body["industry"] == "telecom"


def test_drawing_never_moves_the_zeppelin() -> None:
    state = turn_state(4, 0, played={0: {"telecom": 2}}, stack=(SHIP, SHIP))
    state, events = act(state, 0, "draw")
    assert not of_type(events, "ZeppelinMoved") and state.position[0] == 0


def test_player_chooses_the_industry_when_he_controls_several() -> None:
    state = turn_state(4, 0, hands={0: {"aviation": 1, "shipping": 1}})
    state, events = act(state, 0, "play", {"cards": {"aviation": 1, "shipping": 1}})
    assert types(events) == ["CardsPlayed", "ControlTaken", "ControlTaken", "MoveAwaited"]
    assert events[-1].body == {"seat": 0, "choices": ["shipping", "aviation"]}
    assert state.phase == Phase.MOVING and GAME.to_act(state) == frozenset({0})
    state, events = act(state, 0, "move", {"to": "aviation"})
    assert types(events) == ["ZeppelinMoved", "TurnEnded"]
    assert state.position[0] == 3


def test_seed_example_one_of_each_lets_the_first_player_claim_any_of_the_first_six_spaces() -> None:
    one_each = {name: 1 for name in ("shipping", "aviation", "high_rise", "automobile", "telecom")}
    state = turn_state(4, 0, hands={0: one_each})
    state, _ = act(state, 0, "play", {"cards": one_each})
    reached = set()
    for cmd in GAME.legal_commands(state, 0):
        _after, events = act(state, 0, cmd.type, cmd.body)
        reached.add(of_type(events, "ZeppelinMoved")[0].body["space"])
    assert reached == {1, 2, 3, 4, 5}


def test_one_space_per_turn_at_most() -> None:
    state = turn_state(4, 0, hands={0: {"aviation": 1, "shipping": 1}})
    state, _ = act(state, 0, "play", {"cards": {"aviation": 1, "shipping": 1}})
    state, events = act(state, 0, "move", {"to": "shipping"})
    assert len(of_type(events, "ZeppelinMoved")) == 1
    assert state.big_left[0] == 9 and state.current == 1


def test_forced_move_one_destination_moves_automatically() -> None:
    state = turn_state(4, 0, hands={0: {"high_rise": 2}})
    state, events = act(state, 0, "play", {"cards": {"high_rise": 2}})
    assert types(events) == ["CardsPlayed", "ControlTaken", "ZeppelinMoved", "TurnEnded"]


def test_forced_move_several_choices_give_no_way_to_stay() -> None:
    state = turn_state(4, 0, hands={0: {"aviation": 1, "shipping": 1}})
    state, _ = act(state, 0, "play", {"cards": {"aviation": 1, "shipping": 1}})
    with pytest.raises(IllegalMove, match="you cannot stay now"):
        GAME.decide(state, Command(0, "move", {"to": None}), random.Random(0))


def test_forced_move_off_the_player_may_stay() -> None:
    state = turn_state(4, 0, hands={0: {"high_rise": 2}}, options={"forced_move": False})
    state, events = act(state, 0, "play", {"cards": {"high_rise": 2}})
    assert events[-1].body == {"seat": 0, "choices": ["high_rise", None]}
    state, events = act(state, 0, "move", {"to": None})
    assert types(events) == ["MoveDeclined", "TurnEnded"]
    assert state.position[0] == 0 and state.big_left[0] == 10


def test_move_needs_play_off_a_player_may_play_no_cards_and_only_move() -> None:
    state = turn_state(4, 0, played={0: {"telecom": 2}}, options={"move_needs_play": False})
    assert Command(0, "play", {"cards": {}}) in GAME.legal_commands(state, 0)
    state, events = act(state, 0, "play", {"cards": {}})
    assert types(events) == ["CardsPlayed", "ZeppelinMoved", "TurnEnded"]
    assert state.position[0] == 2


def test_move_needs_play_off_playing_nothing_is_refused_when_no_move_is_possible() -> None:
    state = turn_state(4, 0, hands={0: {"telecom": 1}}, options={"move_needs_play": False})
    assert Command(0, "play", {"cards": {}}) not in GAME.legal_commands(state, 0)
    with pytest.raises(IllegalMove, match="you cannot move now"):
        GAME.decide(state, Command(0, "play", {"cards": {}}), random.Random(0))


def test_no_big_marker_left_cannot_claim_a_space() -> None:
    state = turn_state(4, 0, hands={0: {"aviation": 1}}, big_left=(0, 10, 10, 10))
    state, events = act(state, 0, "play", {"cards": {"aviation": 1}})
    assert types(events) == ["CardsPlayed", "ControlTaken", "TurnEnded"]
    assert state.position[0] == 0


def test_move_to_an_industry_not_offered_is_refused() -> None:
    state = turn_state(4, 0, hands={0: {"aviation": 1, "shipping": 1}})
    state, _ = act(state, 0, "play", {"cards": {"aviation": 1, "shipping": 1}})
    reason = "you cannot move to telecom now; choose one of: shipping, aviation"
    with pytest.raises(IllegalMove, match=reason):
        GAME.decide(state, Command(0, "move", {"to": "telecom"}), random.Random(0))

