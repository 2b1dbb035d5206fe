"""Modern World: the trade phase (propose / accept / decline, done, lapsing, refusal)."""

from __future__ import annotations

import pytest

from services.games.errors import IllegalMove, NotYourTurn
from services.games.modern_world.codec import res_names
from services.games.modern_world.data import INFLUENCE, MONEY, VICTORY
from services.games.modern_world.state import BUILD, TRADE, State
from tests.games.mw_helpers import GAME, play, player, state, types


def trade_phase(*players: object) -> State:
    return state(list(players), TRADE)  # type: ignore[arg-type]


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
    assert s.phase == TRADE
    s, _ = play(s, 1, "done")
    assert s.phase == BUILD


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


def test_house_rule_at_most_three_proposals_per_player_per_trade_phase() -> None:
    s = three()
    for _ in range(3):
        s, _ = play(s, 0, "propose_trade", to=2, give_tokens={"money": 1})
    with pytest.raises(IllegalMove, match="3 proposals"):
        play(s, 0, "propose_trade", to=1, give_tokens={"money": 1})
    assert all(c.type != "propose_trade" for c in GAME.legal_commands(s, 0))


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
