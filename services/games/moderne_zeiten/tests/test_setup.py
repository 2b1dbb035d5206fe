"""Components, board data, set-up and options of Moderne Zeiten."""

from __future__ import annotations

import random

import pytest

from services.games import GAMES
from services.games.errors import BadOptions
from services.games.moderne_zeiten.data import (
    INDUSTRIES,
    PRINTED_BOARD,
    PRINTED_CITY_POINTS,
    PRINTED_INDUSTRY_POINTS,
    PRINTED_TRACK,
    make_board,
)
from services.games.moderne_zeiten.game import GAME, moderne_zeiten
from services.games.moderne_zeiten.state import Phase
from services.games.moderne_zeiten.views import view
from tests.games.harness import start


def test_game_is_registered_as_moderne_zeiten() -> None:
    assert GAMES["moderne-zeiten"] is GAME
    assert (GAME.min_seats, GAME.max_seats) == (3, 5)


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_three_to_five_players(seats: int) -> None:
    state, _ = start(GAME, seats, {}, seed=seats)
    assert state.seats == seats


@pytest.mark.parametrize("seats", [0, 1, 2, 6, 7])
def test_other_player_counts_are_refused(seats: int) -> None:
    with pytest.raises(BadOptions, match="3 to 5 players"):
        GAME.setup({}, seats, random.Random(0))


def test_105_share_cards_21_per_industry() -> None:
    state, _ = start(GAME, 4, {}, seed=3)
    cards = [0] * 5
    for c in state.stack + state.lot:
        cards[c] += 1
    for hand in state.hands:
        cards = [a + b for a, b in zip(cards, hand, strict=True)]
    assert cards == [21] * 5


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_each_player_starts_with_15_million_8_cards_10_big_and_10_small_markers(seats: int) -> None:
    state, events = start(GAME, seats, {}, seed=11)
    assert state.money == (15,) * seats
    dealt = [e for e in events if e.type == "CardsDealt"]
    assert [e.body["seat"] for e in dealt] == list(range(seats))
    assert all(sum(e.body["cards"].values()) == 8 for e in dealt)
    assert all(sum(h) == 8 for h in state.hands)
    assert state.big_left == (10,) * seats
    players = view(state, None)["players"]
    assert all(p["big_markers"] == 10 and p["small_markers"] == 10 for p in players)
    assert all(p["position"] == 0 for p in players)


def test_deal_is_secret_to_the_dealt_seat() -> None:
    _, events = start(GAME, 3, {}, seed=5)
    for e in events:
        if e.type == "CardsDealt":
            assert e.visible_to == (e.body["seat"],)
            assert e.redacted == {"seat": e.body["seat"], "count": 8}
        if e.type == "StackShuffled":
            assert e.visible_to == ()
            assert "order" not in (e.redacted or {})


def test_first_event_is_public_match_started_with_options() -> None:
    _, events = start(GAME, 3, {"forced_move": False}, seed=5)
    first = events[0]
    assert first.type == "MatchStarted" and first.is_public
    assert first.body == {
        "game": "moderne-zeiten", "seats": 3,
        "options": {"forced_move": False, "move_needs_play": True, "crash_after_move": True},
    }


def test_first_start_player_is_random_and_recorded_in_an_event() -> None:
    seen = set()
    for seed in range(40):
        state, events = start(GAME, 5, {}, seed=seed)
        chosen = [e for e in events if e.type == "StartPlayerChosen"]
        assert len(chosen) == 1 and chosen[0].is_public
        assert state.start_player == chosen[0].body["seat"]
        seen.add(state.start_player)
    assert seen == set(range(5))


def test_first_round_opens_with_the_start_players_die_roll() -> None:
    state, events = start(GAME, 4, {}, seed=9)
    names = [e.type for e in events]
    assert names[-3:] == ["RoundStarted", "DieRolled", "CardsLaidOut"]
    roll = events[-2].body
    assert roll["seat"] == state.start_player and 1 <= roll["roll"] <= 6
    assert len(state.lot) == roll["roll"] == events[-1].body["count"]
    assert state.phase == Phase.AUCTION and state.bidder == state.start_player


def test_options_default_to_the_rules_file() -> None:
    opts = GAME.Options()
    assert opts.model_dump() == {"forced_move": True, "move_needs_play": True, "crash_after_move": True}


def test_unknown_or_ill_typed_options_are_refused() -> None:
    with pytest.raises(BadOptions):
        GAME.setup({"fast": True}, 3, random.Random(0))
    with pytest.raises(BadOptions):
        GAME.setup({"forced_move": "sometimes"}, 3, random.Random(0))


def test_board_has_30_spaces_each_city_industry_pair_once() -> None:
    assert len(PRINTED_BOARD.track) == 30
    assert len(set(PRINTED_BOARD.track)) == 30
    assert PRINTED_BOARD.finish == 31
    assert PRINTED_BOARD.cities == ("new_orleans", "chicago", "berlin", "paris", "london", "new_york")


def test_board_track_order_and_values_match_the_rules_table() -> None:
    first = [PRINTED_TRACK[i] for i in (0, 1, 2, 9, 20, 29)]
    assert first == [
        ("new_orleans", "shipping"), ("chicago", "telecom"), ("berlin", "aviation"),
        ("paris", "high_rise"), ("berlin", "telecom"), ("new_york", "shipping"),
    ]
    assert PRINTED_BOARD.city_points == (2, 3, 3, 4, 4, 5)
    assert dict(zip(INDUSTRIES, PRINTED_BOARD.industry_points, strict=True)) == {
        "shipping": 3, "aviation": 4, "high_rise": 2, "automobile": 3, "telecom": 5,
    }
    assert PRINTED_BOARD.spaces_of[INDUSTRIES.index("aviation")] == (3, 8, 13, 18, 22, 26)


def test_another_printing_of_the_board_can_be_loaded() -> None:
    reversed_board = make_board(tuple(reversed(PRINTED_TRACK)), PRINTED_CITY_POINTS, PRINTED_INDUSTRY_POINTS)
    game = moderne_zeiten(reversed_board)
    state, _ = start(game, 3, {}, seed=1)
    assert state.board is reversed_board
    assert view(state, 0)["track"][0] == {
        "space": 1, "city": "new_york", "industry": "shipping", "claimed_by": None,
    }


def test_a_board_missing_a_pair_is_refused() -> None:
    with pytest.raises(BadOptions, match="exactly once"):
        make_board((*PRINTED_TRACK[:-1], PRINTED_TRACK[0]), PRINTED_CITY_POINTS, PRINTED_INDUSTRY_POINTS)
