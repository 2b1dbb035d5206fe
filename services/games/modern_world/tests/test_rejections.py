"""Modern World: bad input of every kind is rejected with a clear reason and changes nothing."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from services.games.base import Command
from services.games.errors import BadCommand, GameOver, IllegalMove, NotYourTurn, Rejected
from services.games.modern_world import flow
from services.games.modern_world.flow import new_tape
from services.games.modern_world.state import Phase, State
from services.games.modern_world.tests.helpers import GAME, Dice, auction, new_match, player, state

TEN = ["Government", "Science", "Agriculture", "Mining", "Finance",
       "Military", "Culture", "Media", "Oil", "Energy"]


def rejected(s: State, seat: Any, type_: str, **body: Any) -> Rejected:
    snapshot = copy.deepcopy(s)
    with pytest.raises(Rejected) as info:
        GAME.decide(s, Command(seat, type_, body), random.Random(0))
    assert s == snapshot
    assert info.value.reason
    return info.value


def leader_state() -> State:
    return state([player(influence=5, money=2), player(influence=8)], Phase.LEADER, auction=auction(None, 0))


def test_unknown_command_type() -> None:
    e = rejected(leader_state(), 0, "nuke")
    assert isinstance(e, BadCommand) and "unknown command 'nuke'" in e.reason


@pytest.mark.parametrize("seat", [-1, 2, 7, "0", True, None])
def test_wrong_seat(seat: Any) -> None:
    e = rejected(leader_state(), seat, "pass")
    assert isinstance(e, BadCommand) and "no seat" in e.reason


def test_out_of_turn() -> None:
    e = rejected(leader_state(), 1, "bid", amount=1)
    assert isinstance(e, NotYourTurn) and "it is seat 0's turn" in e.reason


@pytest.mark.parametrize(
    ("phase", "command", "body"),
    [
        (Phase.LEADER, "buy", {"position": 1, "action": 1}),
        (Phase.LEADER, "done", {}),
        (Phase.LEADER, "build", {"card": "Oil"}),
        (Phase.RESOURCE, "bid", {"amount": 1}),
        (Phase.RESOURCE, "invest", {"cards": ["Oil"]}),
        (Phase.INVESTMENT, "propose_trade", {"to": 1, "give_tokens": {"money": 1}}),
        (Phase.TRADE, "pass", {}),
        (Phase.BUILD, "discard", {"cards": ["Oil"]}),
        (Phase.END, "done", {}),
        (Phase.END, "pick_nation", {"nation": "USA"}),
    ],
)
def test_wrong_phase(phase: str, command: str, body: dict[str, Any]) -> None:
    s = state([player(hand=["Oil"] * 8, money=3), player()], phase, queue=(0,),
              auction=auction(None, 0) if phase == Phase.LEADER else None, tableau=TEN)
    e = rejected(s, 0, command, **body)
    assert isinstance(e, IllegalMove) and f"not allowed in the {phase} phase" in e.reason


@pytest.mark.parametrize(
    ("command", "body", "reason"),
    [
        ("bid", {}, "'amount': Field required"),
        ("bid", {"amount": "3"}, "'amount': Input should be a valid integer"),
        ("bid", {"amount": 2.5}, "'amount': Input should be a valid integer"),
        ("bid", {"amount": True}, "'amount': Input should be a valid integer"),
        ("convert", {"into": "money"}, "'into': Input should be 'victory', 'influence', 'materials'"),
        ("convert", {"into": "victory", "count": 0}, "'count': Input should be greater than or equal to 1"),
        ("convert", {"into": "victory", "count": 1001}, "'count': Input should be less than or equal to 1000"),
        ("convert", {"into": "gold"}, "'into': Input should be"),
    ],
)
def test_malformed_bodies(command: str, body: dict[str, Any], reason: str) -> None:
    e = rejected(leader_state(), 0, command, **body)
    assert isinstance(e, BadCommand) and reason in e.reason


def test_bid_below_the_minimum() -> None:
    s = leader_state()._replace(auction=auction(None, 0, high_bid=3, high_bidder=1, passes=0))
    e = rejected(s, 0, "bid", amount=3)
    assert isinstance(e, IllegalMove) and "least you may bid is 4" in e.reason
    e = rejected(leader_state(), 0, "bid", amount=0)
    assert "least you may bid is 1" in e.reason


def test_bid_above_ones_influence() -> None:
    e = rejected(leader_state(), 0, "bid", amount=6)
    assert isinstance(e, IllegalMove) and e.reason == "bid 6 exceeds your 5 influence"


def test_cannot_convert_without_money() -> None:
    e = rejected(leader_state(), 0, "convert", into="influence")
    assert isinstance(e, IllegalMove) and "needs 3 money; you have 2" in e.reason


def resource_state(**tokens: int) -> State:
    return state([player(**tokens), player()], Phase.RESOURCE, queue=(0, 1), tableau=TEN)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ({"position": 3, "action": 3}, "cannot pay 3 action and 0 research"),
        ({"position": 2, "action": 1}, "costs 2"),
        ({"position": 11, "action": 11}, "'position': Input should be less than or equal to 10"),
        ({"position": 0}, "'position': Input should be greater than or equal to 1"),
        ({"position": 1, "action": -1, "research": 2}, "'action': Input should be greater than or equal to 0"),
    ],
)
def test_cannot_buy_what_one_cannot_pay(body: dict[str, Any], reason: str) -> None:
    e = rejected(resource_state(action=2, research=0), 0, "buy", **body)
    assert reason in e.reason


def test_invest_cards_one_lacks() -> None:
    s = state([player(hand=["Oil"]), player()], Phase.INVESTMENT, queue=(0,))
    e = rejected(s, 0, "invest", cards=["Oil", "Oil"])
    assert isinstance(e, IllegalMove) and "you do not hold all of Oil, Oil" in e.reason
    e = rejected(s, 0, "invest", cards=["Unobtainium"])
    assert isinstance(e, BadCommand) and e.reason.startswith("'cards.0': Input should be 'Government', ")
    e = rejected(s, 0, "invest", cards=[])
    assert isinstance(e, BadCommand)


def test_trade_with_cards_one_lacks() -> None:
    s = state([player(hand=["Oil"]), player(hand=["Law"])], Phase.TRADE)
    e = rejected(s, 0, "propose_trade", to=1, give_cards=["Law"])
    assert isinstance(e, IllegalMove) and "you do not hold all of Law" in e.reason
    e = rejected(s, 0, "propose_trade", to=5, give_cards=["Oil"])
    assert isinstance(e, BadCommand)
    e = rejected(s, 0, "propose_trade", to=1, give_tokens={"gold": 1})
    assert isinstance(e, BadCommand) and e.reason.startswith("'give_tokens.gold.[key]': Input should be 'victory'")
    e = rejected(s, 0, "propose_trade", to=1, give_tokens={"money": -1})
    assert isinstance(e, BadCommand)


def test_build_one_cannot_pay() -> None:
    s = state([player(hand=["Oil"], materials=5, labor=4), player()], Phase.BUILD, queue=(0,))
    e = rejected(s, 0, "build", card="Oil")
    assert e.reason == "building Oil costs 5 materials and 5 labor; you have 5 materials and 4 labor"


def test_discard_wrong_count() -> None:
    s = state([player(hand=["Oil"] * 9), player()], Phase.END, queue=(0,))
    e = rejected(s, 0, "discard", cards=["Oil"] * 3)
    assert "discard exactly 2, not 3" in e.reason


def test_nothing_accepted_after_the_end() -> None:
    s = state([player(), player()], Phase.END, deck=[])
    f = new_tape(s, Dice())
    flow.start_turn(f)
    e = rejected(f.state, 0, "pass")
    assert isinstance(e, GameOver)
    assert GAME.to_act(f.state) == frozenset() and GAME.legal_commands(f.state, 0) == []


def test_rejections_on_a_real_match_leave_the_state_and_legal_commands_are_accepted() -> None:
    s, _ = new_match(4, seed=11)
    for seat in range(4):
        for cmd in GAME.legal_commands(s, seat):
            GAME.decide(s, cmd, random.Random(0))
    waiting = sorted(GAME.to_act(s))
    other = next(i for i in range(4) if i not in waiting)
    rejected(s, other, "pass")
    rejected(s, waiting[0], "bid", amount=10_000)
    e = rejected(s, waiting[0], "bid", amount=1, extra=3)
    assert isinstance(e, BadCommand) and e.reason == "'extra': unknown field"


def test_body_must_be_a_mapping() -> None:
    s = leader_state()
    snapshot = copy.deepcopy(s)
    with pytest.raises(BadCommand, match="must be a mapping"):
        GAME.decide(s, Command(0, "bid", [3]), random.Random(0))  # type: ignore[arg-type]
    assert s == snapshot
