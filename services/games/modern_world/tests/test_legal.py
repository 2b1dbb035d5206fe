"""Modern World: ``legal`` is complete and sound (every candidate ``decide`` accepts is covered, every sampled
body of every choice is accepted) and covers commands the old bounded list left out; ``legal_commands`` is drawn
from it; command bodies are validated strictly, with a clear reason; phases reach the wire as plain strings."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import msgpack
import pytest

from schemas.legal import Choice, covered
from services.games.base import Command, commands_of
from services.games.errors import BadCommand, Rejected
from services.games.modern_world.candidates import candidates
from services.games.modern_world.state import Phase, State, Trade
from services.games.modern_world.tests.helpers import GAME, auction, new_match, player, state, tokens
from services.games.rng import derive_rng
from tests.games.harness import random_playout

TEN = ["Government", "Science", "Agriculture", "Mining", "Finance", "Military", "Culture", "Media", "Oil", "Energy"]


def accepts(s: State, seat: int, type_: str, body: dict[str, Any]) -> bool:
    try:
        GAME.decide(s, Command(seat, type_, body), random.Random(0))
    except Rejected:
        return False
    return True


def check_state(s: State, seats: int, sampler: random.Random) -> tuple[int, int]:
    """The conformance suite's check on one state; returns (candidates accepted, bodies sampled)."""
    accepted = sampled = 0
    acting = GAME.to_act(s)
    for seat in range(seats):
        choices = GAME.legal(s, seat)
        assert seat in acting or choices == []
        for kind, body in candidates(s, seat):
            if accepts(s, seat, kind, body):
                accepted += 1
                assert covered(choices, kind, body), f"accepted but not in legal: seat {seat} {kind} {body}"
        for choice in choices:
            assert isinstance(choice, Choice) and choice.count > 0
            for _ in range(min(choice.count, 4)):
                body = choice.sample(sampler)
                sampled += 1
                assert accepts(s, seat, choice.type, body), f"legal but refused: seat {seat} {choice.type} {body}"
    return accepted, sampled


def legal_playout(seats: int, seed: int, options: dict[str, Any], every: int = 3) -> tuple[int, int]:
    """A match choosing a random choice of ``legal`` and a random body of it; every ``every`` versions the
    state is checked as the conformance suite does."""
    pick, sampler = random.Random(seed), random.Random(seed + 1)
    s, log = new_match(seats, seed, **options)
    totals = [0, 0]
    while GAME.outcome(s) is None:
        if len(log) % every == 0:
            for i, n in enumerate(check_state(s, seats, sampler)):
                totals[i] += n
        seat = pick.choice(sorted(GAME.to_act(s)))
        choice = pick.choice(GAME.legal(s, seat))
        events = GAME.decide(s, Command(seat, choice.type, choice.sample(pick)), derive_rng(seed, len(log)))
        for e in events:
            s = GAME.evolve(s, e)
        log.extend(events)
    assert all(GAME.legal(s, seat) == [] for seat in range(seats))
    return totals[0], totals[1]


def test_legal_is_complete_and_sound_in_a_random_match() -> None:
    accepted, sampled = legal_playout(3, 7, {"national_identity": True})
    assert accepted > 1000 and sampled > 1000


@pytest.mark.slow
@pytest.mark.parametrize(("seats", "national_identity"), [(2, False), (4, True), (5, False), (6, True)])
def test_legal_is_complete_and_sound_in_random_matches(seats: int, national_identity: bool) -> None:
    legal_playout(seats, 100 + seats, {"national_identity": national_identity})


def test_legal_commands_are_drawn_from_legal() -> None:
    s, _ = new_match(4, seed=3)
    for seat in range(4):
        assert GAME.legal_commands(s, seat) == commands_of(GAME.legal(s, seat), seat)


# --- commands the old bounded list left out, now covered (and accepted)

HAND = ["Mining", "Finance", "Oil", "Oil", "Land"]


def covered_and_accepted(s: State, seat: int, type_: str, **body: Any) -> None:
    assert covered(GAME.legal(s, seat), type_, body), (type_, body)
    assert accepts(s, seat, type_, body), (type_, body)


def test_every_bid_in_range_and_any_conversion() -> None:
    s = state([player(influence=12, money=7), player()], Phase.LEADER, auction=auction(None, 0, high_bid=2))
    for amount in (3, 6, 7, 11, 12):  # the old list: 3, 5 and 12
        covered_and_accepted(s, 0, "bid", amount=amount)
    covered_and_accepted(s, 0, "convert", into="research", count=1)  # the old list: all money into influence
    covered_and_accepted(s, 0, "convert", into="victory")  # count left out: 1
    assert not covered(GAME.legal(s, 0), "bid", {"amount": 13}) and not accepts(s, 0, "bid", {"amount": 13})
    assert not covered(GAME.legal(s, 0), "convert", {"into": "victory", "count": 3})


def test_every_payment_mix_and_the_short_forms_of_a_purchase() -> None:
    s = state([player(action=3, research=4), player()], Phase.RESOURCE, queue=(0, 1), tableau=TEN)
    for position, action in ((4, 2), (5, 2), (6, 3), (7, 3)):  # the old list: all action, all research, half
        covered_and_accepted(s, 0, "buy", position=position, action=action, research=position - action)
    covered_and_accepted(s, 0, "buy", position=2, action=2)
    covered_and_accepted(s, 0, "buy", position=4, research=4)
    assert not covered(GAME.legal(s, 0), "buy", {"position": 4, "action": 4})


def test_any_cards_from_the_hand_to_invest_or_discard() -> None:
    s = state([player(hand=HAND), player()], Phase.INVESTMENT, queue=(0,))
    for cards in (["Mining", "Oil"], ["Oil", "Oil"], ["Finance", "Oil", "Oil", "Land"], HAND):
        covered_and_accepted(s, 0, "invest", cards=cards)  # the old list: each card alone and the whole hand
    assert not covered(GAME.legal(s, 0), "invest", {"cards": ["Oil", "Oil", "Oil"]})
    hand = [*TEN[:7], "Oil", "Oil"]
    s = state([player(hand=hand), player()], Phase.END, queue=(0,))
    for cards in (["Government", "Culture"], ["Mining", "Oil"], ["Oil", "Oil"]):  # the old list: the first or last 2
        covered_and_accepted(s, 0, "discard", cards=cards)
    assert not covered(GAME.legal(s, 0), "discard", {"cards": ["Oil"]})


def test_card_lists_in_any_order_with_repeats() -> None:
    hand = [*TEN[:6], "Oil", "Oil", "Oil", "Land", "Land"]  # many lists with repeats: once listed one by one
    s = state([player(hand=hand), player()], Phase.INVESTMENT, queue=(0,))
    for cards in (["Oil", "Mining", "Oil"], ["Land", "Oil", "Land", "Oil", "Science", "Oil"], hand[::-1]):
        covered_and_accepted(s, 0, "invest", cards=cards)
    assert not covered(GAME.legal(s, 0), "invest", {"cards": ["Oil"] * 4})
    [choice] = [c for c in GAME.legal(s, 0) if c.type == "invest"]
    assert choice.count == 2**6 * 4 * 3 - 1  # each single in or out, 0-3 Oil, 0-2 Land; not the empty list


def test_proposals_of_any_cards_and_tokens() -> None:
    s = state([player(hand=HAND, money=6, labor=2), player(labor=5), player(influence=9), player()], Phase.TRADE,
              done=(3,))
    # the old list: one card for 2 of the partner's most plentiful token, or 2 of one's own for 1 of his
    covered_and_accepted(s, 0, "propose_trade", to=2, give_cards=["Mining", "Oil"], get_tokens={"labor": 3})
    covered_and_accepted(s, 0, "propose_trade", to=1, give_cards=["Oil", "Oil"], get_cards=["Science", "Law"])
    covered_and_accepted(s, 0, "propose_trade", to=1, give_tokens={"money": 6})
    covered_and_accepted(s, 0, "propose_trade", to=2, get_tokens={"influence": 9}, get_cards=["Culture"])
    legal = GAME.legal(s, 0)
    assert not covered(legal, "propose_trade", {"to": 3, "get_cards": ["Oil"]})  # done trading
    assert not covered(legal, "propose_trade", {"to": 0, "get_cards": ["Oil"]})  # yourself
    assert not covered(legal, "propose_trade", {"to": 1, "give_tokens": {"money": 7}})
    covered_and_accepted(s, 0, "propose_trade", to=1, give_tokens={"money": 2, "labor": 2},
                         give_cards=["Oil", "Mining"])
    covered_and_accepted(s, 0, "propose_trade", to=1, get_tokens={"victory": 40, "money": 999},
                         get_cards=["Oil"] * 20)
    assert not covered(legal, "propose_trade", {"to": 1, "get_tokens": {"money": 1000}})
    assert not accepts(s, 0, "propose_trade", {"to": 1, "get_tokens": {"money": 1000}})
    assert not covered(legal, "propose_trade", {"to": 1, "get_cards": ["Oil"] * 21})
    full = s._replace(trades=tuple(Trade(i, 0, 1, (), tokens(money=1), (), ()) for i in (1, 2, 3)))
    assert not any(c.type == "propose_trade" for c in GAME.legal(full, 0))  # 3 proposals open


# --- strict bodies


def refused(s: State, seat: int, type_: str, body: Any) -> str:
    snapshot = copy.deepcopy(s)
    with pytest.raises(BadCommand) as info:
        GAME.decide(s, Command(seat, type_, body), random.Random(0))
    assert s == snapshot
    return info.value.reason


@pytest.mark.parametrize(
    ("type_", "body", "reason"),
    [
        ("bid", {"amount": "5"}, "'amount': Input should be a valid integer"),
        ("bid", {"amount": 5.0}, "'amount': Input should be a valid integer"),
        ("bid", {"amount": True}, "'amount': Input should be a valid integer"),
        ("bid", {"amount": 5, "max": 9}, "'max': unknown field"),
        ("pass", {"really": True}, "'really': unknown field"),
        ("convert", {"into": "victory", "count": "2"}, "'count': Input should be a valid integer"),
        ("convert", {"into": "Victory"}, "'into': Input should be 'victory', 'influence'"),
        ("bid", None, "the command body must be a mapping"),
    ],
)
def test_auction_bodies_are_validated_strictly(type_: str, body: Any, reason: str) -> None:
    s = state([player(influence=12, money=7), player()], Phase.LEADER, auction=auction(None, 0))
    assert refused(s, 0, type_, body).startswith(reason)


@pytest.mark.parametrize(
    ("type_", "body", "reason"),
    [
        ("propose_trade", {"to": "1", "get_cards": ["Oil"]}, "'to': Input should be a valid integer"),
        ("propose_trade", {"to": 1, "give_cards": []}, "'give_cards': List should have at least 1 item"),
        ("propose_trade", {"to": 1, "get_tokens": {}}, "'get_tokens': Dictionary should have at least 1 item"),
        ("propose_trade", {"to": 1, "give_tokens": {"money": 0}}, "'give_tokens.money': Input should be greater"),
        ("propose_trade", {"to": 1, "give_tokens": {"money": 1.5}}, "'give_tokens.money': Input should be a valid"),
        ("propose_trade", {"to": 1, "get_cards": "Oil"}, "'get_cards': Input should be a valid list"),
        ("propose_trade", {"to": 1, "get_cards": ["oil"]}, "'get_cards.0': Input should be 'Government'"),
        ("propose_trade", {"to": 1, "gift": ["Oil"]}, "'gift': unknown field"),
        ("propose_trade", {"to": 9, "get_cards": ["Oil"]}, "'to' must be at most 2, got 9"),
        ("accept_trade", {"id": "1"}, "'id': Input should be a valid integer"),
        ("decline_trade", {}, "'id': Field required"),
    ],
)
def test_trade_bodies_are_validated_strictly(type_: str, body: Any, reason: str) -> None:
    s = state([player(hand=["Oil"], money=3), player(), player()], Phase.TRADE)
    assert refused(s, 0, type_, body).startswith(reason)


def test_card_bodies_are_validated_strictly() -> None:
    s = state([player(hand=["Oil", "Law"]), player()], Phase.INVESTMENT, queue=(0,))
    assert refused(s, 0, "invest", {"cards": ["Oil", 3]}).startswith("'cards.1': Input should be 'Government'")
    assert refused(s, 0, "invest", {"cards": ("Oil",)}) == "'cards': Input should be a valid list"
    s = state([player(hand=["Oil"], materials=9, labor=9), player()], Phase.BUILD, queue=(0,))
    assert refused(s, 0, "build", {"card": "oil"}).startswith("'card': Input should be 'Government'")
    assert refused(s, 0, "build", {"card": "Oil", "cards": ["Oil"]}) == "'cards': unknown field"


def test_a_rule_check_keeps_its_reason_after_the_body_is_read() -> None:
    s = state([player(influence=5), player()], Phase.LEADER, auction=auction(None, 0, high_bid=3, high_bidder=1))
    with pytest.raises(Rejected, match="bid 3 is too low: the least you may bid is 4"):
        GAME.decide(s, Command(0, "bid", {"amount": 3}), random.Random(0))
    with pytest.raises(Rejected, match="bid 6 exceeds your 5 influence"):
        GAME.decide(s, Command(0, "bid", {"amount": 6}), random.Random(0))


# --- phases on the wire


def test_phases_reach_events_and_views_as_plain_strings() -> None:
    s, log, _ = random_playout(GAME, 3, {"national_identity": True}, seed=4)
    phases = [e.body["phase"] for e in log if "phase" in e.body]
    assert phases and all(type(p) is str for p in phases)
    for seat in (None, 0):
        view = GAME.view(s, seat)
        assert type(view["phase"]) is str and view["phase"] == "over"
        assert json.loads(json.dumps(view)) == view
        assert msgpack.unpackb(msgpack.packb(view)) == view
    assert msgpack.unpackb(msgpack.packb([e.body for e in log])) == [e.body for e in log]
    assert isinstance(s.phase, Phase) and s.phase is Phase.OVER
