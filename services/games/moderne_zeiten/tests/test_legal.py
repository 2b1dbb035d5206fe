"""``legal``: every command a seat may send, as choices (a bid's range, any cards of the hand), and only
those; ``legal_commands`` is a bounded concrete list drawn from them. Phases reach the wire as plain text."""

from __future__ import annotations

import json
import random
from typing import Any

import msgpack
import pytest

from schemas.legal import Choice, Counts, IntRange, covered
from services.games.base import Command
from services.games.errors import Rejected
from services.games.moderne_zeiten.candidates import candidates
from services.games.moderne_zeiten.data import INDUSTRY_INDEX
from services.games.moderne_zeiten.game import GAME
from services.games.moderne_zeiten.schemas import COMMANDS, INDUSTRIES, MOVE_TARGETS, PHASES, SCHEMAS, MzView
from services.games.moderne_zeiten.state import Phase, State
from services.games.moderne_zeiten.tests.helpers import act, auction_state, turn_state

BOOK_EXAMPLE = {"automobile": 3, "telecom": 2, "aviation": 1, "shipping": 1}  # the rule book's first play


def _accepted(state: State, seat: int, kind: str, body: dict[str, Any]) -> bool:
    try:
        GAME.decide(state, Command(seat, kind, body), random.Random(0))
    except Rejected:
        return False
    return True


def test_the_rule_books_example_play_is_covered() -> None:
    state = turn_state(4, 0, hands={0: {**BOOK_EXAMPLE, "high_rise": 1}})
    choices = GAME.legal(state, 0)
    assert covered(choices, "play", {"cards": BOOK_EXAMPLE})
    assert _accepted(state, 0, "play", {"cards": BOOK_EXAMPLE})
    assert not covered(choices, "play", {"cards": {**BOOK_EXAMPLE, "automobile": 4}})


def test_a_play_is_any_cards_of_the_hand_at_least_one() -> None:
    hand = {"shipping": 2, "aviation": 2, "high_rise": 2, "automobile": 1, "telecom": 1}
    state = turn_state(4, 0, hands={0: hand})
    draw, play = GAME.legal(state, 0)
    assert draw == Choice(type="draw")
    assert play == Choice(type="play", free={"cards": Counts(max=hand, min_total=1, max_total=8)})
    assert play.count == 3 * 3 * 3 * 2 * 2 - 1
    assert covered([play], "play", {"cards": hand}) and covered([play], "play", {"cards": {"telecom": 1}})
    assert not covered([play], "play", {"cards": {}})
    assert not covered([play], "play", {"cards": {"telecom": 1, "aviation": 0}})  # zero counts are left out
    for body in play.bodies():
        assert _accepted(state, 0, "play", body), body


def test_an_empty_hand_can_only_draw() -> None:
    assert GAME.legal(turn_state(4, 0), 0) == [Choice(type="draw")]


def test_playing_nothing_is_its_own_choice_when_it_is_legal() -> None:
    nothing = Choice(type="play", body={"cards": {}})
    only_move = turn_state(4, 0, hands={0: {"aviation": 1}}, played={0: {"telecom": 2}},
                           options={"move_needs_play": False})
    assert GAME.legal(only_move, 0)[-1] == nothing and _accepted(only_move, 0, "play", {"cards": {}})
    no_move = turn_state(4, 0, hands={0: {"aviation": 1}}, options={"move_needs_play": False})
    assert nothing not in GAME.legal(no_move, 0) and not _accepted(no_move, 0, "play", {"cards": {}})
    essen = turn_state(4, 0, hands={0: {"aviation": 1}}, played={0: {"telecom": 2}})
    assert nothing not in GAME.legal(essen, 0) and not _accepted(essen, 0, "play", {"cards": {}})


def test_a_bid_is_a_range_from_above_the_high_bid_to_ones_money() -> None:
    state = auction_state(4, money=(15, 15, 15, 15), high_bid=3, high_bidder=2)
    assert GAME.legal(state, 0) == [Choice(type="pass"), Choice(type="bid", free={"amount": IntRange(min=4, max=15)})]
    choices = GAME.legal(state, 0)
    assert covered(choices, "bid", {"amount": 4}) and covered(choices, "bid", {"amount": 15})
    for amount in (3, 16, "4", True, 4.0):
        assert not covered(choices, "bid", {"amount": amount}), amount
        assert not _accepted(state, 0, "bid", {"amount": amount}), amount
    assert _accepted(state, 0, "bid", {"amount": 4}) and _accepted(state, 0, "bid", {"amount": 15})


def test_who_cannot_outbid_may_only_pass() -> None:
    state = auction_state(4, money=(3, 15, 15, 15), high_bid=3, high_bidder=2)
    assert GAME.legal(state, 0) == [Choice(type="pass")]


def test_moves_are_the_destinations_on_offer() -> None:
    state = turn_state(4, 0, hands={0: {"high_rise": 2}}, options={"forced_move": False})
    state, _ = act(state, 0, "play", {"cards": {"high_rise": 2}})
    assert GAME.legal(state, 0) == [Choice(type="move", body={"to": "high_rise"}),
                                    Choice(type="move", body={"to": None})]
    for to in MOVE_TARGETS:
        assert covered(GAME.legal(state, 0), "move", {"to": to}) == _accepted(state, 0, "move", {"to": to}), to


def test_only_the_seat_to_act_has_choices() -> None:
    state = auction_state(4, start=1)
    assert [GAME.legal(state, seat) != [] for seat in range(4)] == [False, True, False, False]


def test_legal_agrees_with_decide_on_a_broad_set_of_candidates() -> None:
    """The conformance check, on states the rule tests build by hand (all option values)."""
    states = [
        turn_state(4, 0, hands={0: {**BOOK_EXAMPLE, "high_rise": 1}}),
        turn_state(3, 1, hands={1: {"aviation": 1}}, played={1: {"telecom": 2}}, options={"move_needs_play": False}),
        auction_state(5, start=2, money=(15, 2, 9, 0, 30), high_bid=2, high_bidder=1),
    ]
    moving = turn_state(4, 0, hands={0: {"aviation": 1, "shipping": 1}}, options={"forced_move": False})
    states.append(act(moving, 0, "play", {"cards": {"aviation": 1, "shipping": 1}})[0])
    for state in states:
        for seat in range(state.seats):
            choices = GAME.legal(state, seat)
            for kind, body in candidates(state, seat):
                assert covered(choices, kind, body) == _accepted(state, seat, kind, body), (seat, kind, body)


def test_legal_commands_are_concrete_and_bounded() -> None:
    hand: dict[str, int] = {name: 4 for name in INDUSTRIES}
    state = turn_state(4, 0, hands={0: hand}, played={0: {"telecom": 2}}, options={"move_needs_play": False})
    commands = GAME.legal_commands(state, 0)
    assert len(commands) <= 64 and commands[0] == Command(0, "draw")
    assert commands[-1] == Command(0, "play", {"cards": {}})
    assert Command(0, "play", {"cards": hand}) in commands
    rich = auction_state(4, money=(75, 0, 0, 0))
    bids = [c.body["amount"] for c in GAME.legal_commands(rich, 0) if c.type == "bid"]
    assert bids[0] == 1 and bids[-1] == 75 and len(bids) <= 48
    small = auction_state(4, money=(6, 15, 15, 15), high_bid=2, high_bidder=3)
    assert [c.body.get("amount") for c in GAME.legal_commands(small, 0)] == [None, 3, 4, 5, 6]


def test_the_wire_contract_defines_the_enumerations_and_every_command_model_is_strict() -> None:
    assert INDUSTRIES == ("shipping", "aviation", "high_rise", "automobile", "telecom")
    assert tuple(INDUSTRY_INDEX) == INDUSTRIES
    assert (*INDUSTRIES, "finish", None) == MOVE_TARGETS
    assert tuple(Phase) == PHASES and all(isinstance(p, str) for p in Phase)
    assert set(COMMANDS) == set(SCHEMAS.commands) and all(SCHEMAS.commands[k] is m for k, m in COMMANDS.items())
    assert all(model.model_config.get("strict") and model.model_config.get("extra") == "forbid"
               for model in COMMANDS.values())
    commands = SCHEMAS.commands
    assert commands["play"].model_json_schema()["properties"]["cards"]["description"].startswith("Cards by industry")
    assert "description" in commands["bid"].model_json_schema()["properties"]["amount"]


@pytest.mark.parametrize("seat", [None, 0])
def test_the_phase_reaches_the_wire_as_plain_text(seat: int | None) -> None:
    state = auction_state(4)
    view = GAME.view(state, seat)
    assert view["phase"] == "auction" and type(view["phase"]) is str
    assert msgpack.unpackb(msgpack.packb(view))["phase"] == "auction"
    assert json.loads(json.dumps(view))["phase"] == "auction"
    assert MzView.model_validate(view).phase == "auction"
