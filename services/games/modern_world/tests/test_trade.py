"""Modern World: the trade phase (propose / accept / decline, done, lapsing, refusal)."""

from __future__ import annotations

import random

import pytest

from services.games.base import Command
from services.games.errors import IllegalMove, NotYourTurn, Rejected
from services.games.modern_world.codec import res_names
from services.games.modern_world.data import INFLUENCE, MAX_OPEN_PROPOSALS, MONEY, VICTORY
from services.games.modern_world.state import Phase, State
from services.games.modern_world.tests.helpers import GAME, play, player, state, types


def trade_phase(*players: object) -> State:
    return state(list(players), Phase.TRADE)  # type: ignore[arg-type]


def three() -> State:
    return trade_phase(
        player(hand=["Oil", "Media"], money=5, victory=2),
        player(hand=["Finance"], influence=4),
        player(hand=["Law"], money=1),
    )


def test_everyone_trades_at_once() -> None:
    assert GAME.to_act(three()) == frozenset({0, 1, 2})


def test_accepted_trade_moves_cards_and_tokens_of_both_sides_at_once() -> None:
    s = three()
    s, _ = play(s, 0, "propose_trade", to=1, give_cards=["Oil"], give_tokens={"money": 2},
                get_cards=["Finance"], get_tokens={"influence": 3})
    assert len(s.trades) == 1
    s, events = play(s, 1, "accept_trade", id=1)
    assert types(events) == ["TradeAccepted"]
    a, b = s.players[0], s.players[1]
    assert res_names(a.hand) == ["Finance", "Media"] and res_names(b.hand) == ["Oil"]
    assert (a.tokens[MONEY], a.tokens[INFLUENCE]) == (3, 3)
    assert (b.tokens[MONEY], b.tokens[INFLUENCE]) == (2, 1)
    assert not s.trades


def test_declined_trade_closes_and_moves_nothing() -> None:
    s = three()
    s, _ = play(s, 0, "propose_trade", to=2, give_tokens={"victory": 1}, get_cards=["Law"])
    before = s.players
    s, events = play(s, 2, "decline_trade", id=1)
    assert types(events) == ["TradeDeclined"] and not s.trades and s.players == before


def test_only_the_partner_may_answer_a_proposal() -> None:
    s = three()
    s, _ = play(s, 0, "propose_trade", to=2, give_tokens={"victory": 1}, get_cards=["Law"])
    with pytest.raises(IllegalMove, match="not offered to you"):
        play(s, 1, "accept_trade", id=1)
    with pytest.raises(IllegalMove, match="no open trade 9"):
        play(s, 2, "accept_trade", id=9)


def test_a_proposal_lapses_when_either_player_ends_his_trading() -> None:
    s = three()
    s, _ = play(s, 0, "propose_trade", to=1, give_tokens={"money": 1}, get_tokens={"influence": 1})
    s, _ = play(s, 2, "propose_trade", to=0, give_tokens={"money": 1}, get_tokens={"victory": 1})
    s, events = play(s, 1, "done")
    assert events[0].body == {"seat": 1, "phase": "trade", "lapsed": [1]}
    assert [t.id for t in s.trades] == [2]
    s, events = play(s, 0, "done")
    assert events[0].body["lapsed"] == [2] and not s.trades


def test_cannot_propose_to_a_player_who_is_done() -> None:
    s = three()
    s, _ = play(s, 1, "done")
    with pytest.raises(IllegalMove, match="seat 1 has finished trading"):
        play(s, 0, "propose_trade", to=1, give_tokens={"money": 1})
    with pytest.raises(NotYourTurn):
        play(s, 1, "propose_trade", to=0, give_tokens={"influence": 1})


def test_the_trade_phase_ends_when_every_player_is_done() -> None:
    s = three()
    s, _ = play(s, 0, "done")
    s, _ = play(s, 2, "done")
    assert s.phase == Phase.TRADE
    s, _ = play(s, 1, "done")
    assert s.phase == Phase.BUILD


def test_a_trade_the_proposer_can_no_longer_pay_is_refused() -> None:
    s = three()
    s, _ = play(s, 0, "propose_trade", to=1, give_tokens={"money": 5}, get_tokens={"influence": 1})
    s, _ = play(s, 0, "convert", into="victory")  # now only 2 money
    before = s.players
    s, events = play(s, 1, "accept_trade", id=1)
    assert types(events) == ["TradeRefused"] and not s.trades and s.players == before


def test_cannot_propose_cards_one_lacks() -> None:
    s = three()
    with pytest.raises(IllegalMove, match="you do not hold all of Finance"):
        play(s, 0, "propose_trade", to=1, give_cards=["Finance"])
    with pytest.raises(IllegalMove, match="you do not hold all of Oil, Oil"):
        play(s, 0, "propose_trade", to=1, give_cards=["Oil", "Oil"])


def test_cannot_propose_tokens_one_lacks() -> None:
    s = three()
    with pytest.raises(IllegalMove, match="you do not have 3 victory"):
        play(s, 0, "propose_trade", to=1, give_tokens={"victory": 3})


def test_accepting_needs_what_is_asked() -> None:
    s = three()
    s, _ = play(s, 0, "propose_trade", to=1, get_cards=["Law"])
    with pytest.raises(IllegalMove, match="you do not hold all of Law"):
        play(s, 1, "accept_trade", id=1)
    s, _ = play(s, 0, "propose_trade", to=1, get_tokens={"influence": 5})
    with pytest.raises(IllegalMove, match="you do not have 5 influence"):
        play(s, 1, "accept_trade", id=2)


def test_empty_or_self_trades_are_refused() -> None:
    s = three()
    with pytest.raises(IllegalMove, match="at least one card or token"):
        play(s, 0, "propose_trade", to=1)
    with pytest.raises(IllegalMove, match="with yourself"):
        play(s, 0, "propose_trade", to=0, give_tokens={"money": 1})


def _proposals_listed(s: State, seat: int) -> list[Command]:
    return [c for c in GAME.legal_commands(s, seat) if c.type == "propose_trade"]


def _accepted(s: State, command: Command) -> bool:
    try:
        GAME.decide(s, command, random.Random(0))
    except Rejected:
        return False
    return True


def test_reading_at_most_three_proposals_open_at_once_per_player() -> None:
    # Rules file: "a player may have at most a few proposals open at once (not a cap on proposals made)".
    s = three()
    for _ in range(MAX_OPEN_PROPOSALS):
        assert _proposals_listed(s, 0)
        s, _ = play(s, 0, "propose_trade", to=2, give_tokens={"money": 1})
    with pytest.raises(IllegalMove, match="3 proposals open"):
        play(s, 0, "propose_trade", to=1, give_tokens={"money": 1})
    assert _proposals_listed(s, 0) == []
    assert _proposals_listed(s, 1), "the cap is per player: the others may still propose"


@pytest.mark.parametrize("close", ["accept_trade", "decline_trade", "refused", "lapsed"])
def test_not_a_cap_on_proposals_made_a_closed_proposal_frees_its_place(close: str) -> None:
    s = trade_phase(  # as three(), with seat 2 holding enough for the listed swaps
        player(hand=["Oil", "Media"], money=5, victory=2),
        player(hand=["Finance"], influence=4),
        player(hand=["Law"], money=3),
    )
    s, _ = play(s, 0, "propose_trade", to=1, give_tokens={"money": 3}, get_tokens={"influence": 1})
    for _ in range(MAX_OPEN_PROPOSALS - 1):
        s, _ = play(s, 0, "propose_trade", to=2, give_tokens={"money": 1})
    assert _proposals_listed(s, 0) == []
    if close == "refused":
        s, _ = play(s, 0, "convert", into="victory")  # 2 money left: he can no longer pay trade 1
        s, events = play(s, 1, "accept_trade", id=1)
        assert types(events) == ["TradeRefused"]
    elif close == "lapsed":
        s, _ = play(s, 1, "done")
    else:
        s, _ = play(s, 1, close, id=1)
    assert len([t for t in s.trades if t.frm == 0]) == MAX_OPEN_PROPOSALS - 1
    listed = _proposals_listed(s, 0)
    assert listed and all(_accepted(s, c) for c in listed)
    s, events = play(s, 0, "propose_trade", to=2, give_tokens={"victory": 1})
    assert types(events) == ["TradeProposed"]
    assert GAME.view(s, 0)["players"][0]["proposals_made"] == MAX_OPEN_PROPOSALS + 1


def test_more_than_three_proposals_in_one_trade_phase_as_answers_come_in() -> None:
    s = three()
    for k in range(1, 8):
        s, _ = play(s, 0, "propose_trade", to=2, give_tokens={"money": 1}, get_cards=["Law"])
        s, _ = play(s, 2, "decline_trade", id=k)
    assert s.proposals[0] == 7 and not s.trades
    assert _proposals_listed(s, 0)


def test_legal_proposals_are_listed_exactly_while_decide_accepts_one() -> None:
    s = three()
    probe = Command(0, "propose_trade", {"to": 1, "give_tokens": {"money": 1}})
    k = 0
    while _accepted(s, probe):
        listed = _proposals_listed(s, 0)
        assert listed and all(_accepted(s, c) for c in listed)
        s, _ = play(s, 0, "propose_trade", to=1, give_tokens={"money": 1})
        k += 1
    assert k == MAX_OPEN_PROPOSALS and _proposals_listed(s, 0) == []
    s, _ = play(s, 1, "decline_trade", id=2)
    assert _accepted(s, probe) and _proposals_listed(s, 0)


def test_trade_card_names_are_seen_only_by_the_two_parties() -> None:
    s = three()
    s, events = play(s, 0, "propose_trade", to=1, give_cards=["Oil"], get_tokens={"influence": 1})
    assert events[0].visible_to == (0, 1)
    assert events[0].seen_by(2) == {"id": 1, "proposer": 0, "partner": 1, "give": None, "get": None}
    assert GAME.view(s, 2)["trades"] == [{"id": 1, "proposer": 0, "partner": 1}]
    assert GAME.view(s, 1)["trades"][0]["give"] == {"cards": ["Oil"], "tokens": {}}
    s, events = play(s, 1, "accept_trade", id=1)
    public = events[0].seen_by(None)
    assert public["give"] == {"cards": None, "card_count": 1, "tokens": {}}
    assert public["get"] == {"cards": None, "card_count": 0, "tokens": {"influence": 1}}
    assert s.players[0].tokens[VICTORY] == 2
