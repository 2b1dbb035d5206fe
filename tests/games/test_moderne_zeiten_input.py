"""Bad input: every malformed, out-of-turn or illegal command is rejected with a reason; nothing changes."""

from __future__ import annotations

import random
from typing import Any

import pytest

from services.games.base import Command
from services.games.errors import BadCommand, GameOver, IllegalMove, NotYourTurn, Rejected
from services.games.moderne_zeiten import GAME
from services.games.moderne_zeiten.state import State
from tests.games.moderne_zeiten_helpers import act, auction_state, started, turn_state

HAND = {0: {"aviation": 2, "telecom": 1}}


def _rejected(state: State, seat: Any, type_: str, body: Any, error: type[Rejected], reason: str) -> None:
    before = state
    with pytest.raises(error, match=reason):
        GAME.decide(state, Command(seat, type_, body), random.Random(0))
    assert state == before


def test_unknown_command_is_rejected() -> None:
    _rejected(turn_state(4, 0, hands=HAND), 0, "cheat", {}, BadCommand, "unknown command 'cheat'")


@pytest.mark.parametrize("seat", [9, -1, "0", None, True])
def test_wrong_seat_is_rejected(seat: Any) -> None:
    _rejected(turn_state(4, 0, hands=HAND), seat, "draw", {}, BadCommand, "there is no seat")


def test_out_of_turn_is_rejected() -> None:
    _rejected(turn_state(4, 0, hands=HAND), 2, "draw", {}, NotYourTurn, "it is seat 0's turn to draw or play")
    _rejected(auction_state(4, start=1), 0, "pass", {}, NotYourTurn, "it is seat 1's turn to bid or pass")


def test_command_of_another_phase_is_rejected() -> None:
    _rejected(auction_state(4, start=0), 0, "draw", {}, IllegalMove, "you cannot draw now: bid or pass")
    _rejected(turn_state(4, 0, hands=HAND), 0, "bid", {"amount": 1}, IllegalMove, "you cannot bid now")
    _rejected(turn_state(4, 0, hands=HAND), 0, "move", {"to": "aviation"}, IllegalMove, "cannot move now")


def test_bid_above_ones_money_is_rejected() -> None:
    _rejected(auction_state(4, money=(5, 15, 15, 15)), 0, "bid", {"amount": 7}, IllegalMove,
              "bid 7 exceeds your 5 million")


def test_cards_not_in_hand_are_rejected() -> None:
    _rejected(turn_state(4, 0, hands=HAND), 0, "play", {"cards": {"aviation": 3}}, IllegalMove,
              "you have 2 aviation in hand, not 3")


@pytest.mark.parametrize(
    ("type_", "body", "reason"),
    [
        ("bid", {}, "'amount' must be a whole number"),
        ("bid", {"amount": "7"}, "'amount' must be a whole number"),
        ("bid", {"amount": 2.5}, "'amount' must be a whole number"),
        ("bid", {"amount": True}, "'amount' must be a whole number"),
        ("bid", {"amount": 3, "for": "me"}, "'bid' does not take for"),
        ("pass", {"now": True}, "'pass' does not take now"),
        ("bid", ["amount", 3], "the command body must be a mapping"),
    ],
)
def test_malformed_auction_bodies_are_rejected(type_: str, body: Any, reason: str) -> None:
    _rejected(auction_state(4), 0, type_, body, BadCommand, reason)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ({}, "'cards' must be a mapping"),
        ({"cards": ["aviation"]}, "'cards' must be a mapping"),
        ({"cards": {"zeppelins": 1}}, "unknown 'zeppelins' in 'cards'"),
        ({"cards": {"aviation": -1}}, "must be a whole number >= 0"),
        ({"cards": {"aviation": "2"}}, "must be a whole number >= 0"),
        ({"cards": {"aviation": 1}, "move": "telecom"}, "'play' does not take move"),
    ],
)
def test_malformed_play_bodies_are_rejected(body: Any, reason: str) -> None:
    _rejected(turn_state(4, 0, hands=HAND), 0, "play", body, BadCommand, reason)


def test_malformed_move_body_is_rejected() -> None:
    state = turn_state(4, 0, hands={0: {"aviation": 1, "shipping": 1}})
    state, _ = act(state, 0, "play", {"cards": {"aviation": 1, "shipping": 1}})
    _rejected(state, 0, "move", {"to": "mars"}, BadCommand, "'to' must be an industry")
    _rejected(state, 0, "move", {"to": 3}, BadCommand, "'to' must be an industry")
    _rejected(state, 0, "move", {}, BadCommand, "'to' is required")
    _rejected(state, 0, "draw", {}, IllegalMove, "you cannot draw now: move your Zeppelin")


def test_commands_before_the_match_started_are_rejected() -> None:
    _rejected(started(4), 0, "draw", {}, NotYourTurn, "the match has not started")
    _rejected(GAME.initial(), 0, "draw", {}, NotYourTurn, "the match has not started")


def test_commands_after_the_game_ended_are_rejected() -> None:
    state = turn_state(4, 0, hands={0: {"telecom": 1}}, position=(26, 0, 0, 0))
    state, _ = act(state, 0, "play", {"cards": {"telecom": 1}})
    state, _ = act(state, 0, "move", {"to": "finish"})
    _rejected(state, 1, "draw", {}, GameOver, "the game is over")
