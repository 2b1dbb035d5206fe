"""Bad input: every malformed, out-of-turn or illegal command is rejected with a reason; nothing changes."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from services.games.base import Command
from services.games.errors import BadCommand, GameOver, IllegalMove, NotYourTurn, Rejected
from services.games.moderne_zeiten import GAME
from services.games.moderne_zeiten.state import State
from services.games.moderne_zeiten.tests.helpers import act, auction_state, started, turn_state

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
        ("bid", {}, "'amount': Field required"),
        ("bid", {"amount": "7"}, "'amount': Input should be a valid integer"),
        ("bid", {"amount": "4"}, "'amount': Input should be a valid integer"),  # strict: no coercion
        ("bid", {"amount": 2.5}, "'amount': Input should be a valid integer"),
        ("bid", {"amount": 4.0}, "'amount': Input should be a valid integer"),
        ("bid", {"amount": True}, "'amount': Input should be a valid integer"),  # true is not 1
        ("bid", {"amount": None}, "'amount': Input should be a valid integer"),
        ("bid", {"amount": 3, "for": "me"}, "'for': unknown field"),
        ("pass", {"now": True}, "'now': unknown field"),
        ("bid", ["amount", 3], "the command body must be a mapping"),
        ("pass", None, "the command body must be a mapping"),
    ],
)
def test_malformed_auction_bodies_are_rejected(type_: str, body: Any, reason: str) -> None:
    _rejected(auction_state(4), 0, type_, body, BadCommand, re.escape(reason))


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ({}, "'cards': Field required"),
        ({"cards": ["aviation"]}, "'cards': Input should be a valid dictionary"),
        ({"cards": {"zeppelins": 1}}, "'cards.zeppelins.[key]': Input should be 'shipping', 'aviation', "),
        ({"cards": {"aviation": -1}}, "'cards.aviation': Input should be greater than 0"),
        ({"cards": {"aviation": 0}}, "'cards.aviation': Input should be greater than 0"),  # left out, not 0
        ({"cards": {"aviation": "2"}}, "'cards.aviation': Input should be a valid integer"),
        ({"cards": {"aviation": True}}, "'cards.aviation': Input should be a valid integer"),
        ({"cards": {"aviation": 1}, "move": "telecom"}, "'move': unknown field"),
        ({"cards": {"aviation": 1}, "to": "aviation"}, "'to': unknown field"),
    ],
)
def test_malformed_play_bodies_are_rejected(body: Any, reason: str) -> None:
    _rejected(turn_state(4, 0, hands=HAND), 0, "play", body, BadCommand, re.escape(reason))


@pytest.mark.parametrize("type_", ["draw", "pass"])
def test_bodyless_commands_refuse_any_field(type_: str) -> None:
    state = turn_state(4, 0, hands=HAND) if type_ == "draw" else auction_state(4)
    _rejected(state, 0, type_, {"amount": 1}, BadCommand, re.escape("'amount': unknown field"))


def test_the_body_is_checked_before_the_turn_and_the_rules() -> None:
    _rejected(auction_state(4, start=1), 0, "bid", {"amount": "4"}, BadCommand, "valid integer")
    _rejected(turn_state(4, 0, hands=HAND), 0, "bid", {"amount": True}, BadCommand, "valid integer")


def test_malformed_move_body_is_rejected() -> None:
    state = turn_state(4, 0, hands={0: {"aviation": 1, "shipping": 1}})
    state, _ = act(state, 0, "play", {"cards": {"aviation": 1, "shipping": 1}})
    industries = "'to': Input should be 'shipping', 'aviation', 'high_rise', 'automobile', 'telecom' or 'finish'"
    _rejected(state, 0, "move", {"to": "mars"}, BadCommand, re.escape(industries))
    _rejected(state, 0, "move", {"to": 3}, BadCommand, re.escape(industries))
    _rejected(state, 0, "move", {"to": "Aviation"}, BadCommand, re.escape(industries))
    _rejected(state, 0, "move", {}, BadCommand, re.escape("'to': Field required"))
    _rejected(state, 0, "move", {"to": "aviation", "why": 1}, BadCommand, re.escape("'why': unknown field"))
    _rejected(state, 0, "draw", {}, IllegalMove, "you cannot draw now: move your Zeppelin")


def test_commands_before_the_match_started_are_rejected() -> None:
    _rejected(started(4), 0, "draw", {}, IllegalMove, "the match has not started")
    _rejected(GAME.initial(), 0, "draw", {}, IllegalMove, "the match has not started")


def test_commands_after_the_game_ended_are_rejected() -> None:
    state = turn_state(4, 0, hands={0: {"telecom": 1}}, position=(26, 0, 0, 0))
    state, _ = act(state, 0, "play", {"cards": {"telecom": 1}})
    state, _ = act(state, 0, "move", {"to": "finish"})
    _rejected(state, 1, "draw", {}, GameOver, "the match is over")
