"""Modern World: the leader auction and the market phase (bidding in influence, pass is not final)."""

from __future__ import annotations

import pytest

from services.games.errors import IllegalMove, NotYourTurn
from services.games.modern_world import flow
from services.games.modern_world.codec import market_names
from services.games.modern_world.data import INFLUENCE, MARKET_INDEX, MONEY, VICTORY
from services.games.modern_world.flow import new_tape
from services.games.modern_world.state import Phase, State
from services.games.modern_world.tests.helpers import Dice, auction, of_type, play, player, state, types


def leader_auction(seats: int = 3, leader: int = 1, **kw: object) -> State:
    players = [player(influence=10, money=2) for _ in range(seats)]
    return state(players, Phase.LEADER, leader=leader, auction=auction(None, leader), **kw)


def test_leader_auction_starts_with_the_current_leader() -> None:
    s = leader_auction(leader=2)
    assert s.auction is not None and s.auction.turn == 2
    with pytest.raises(NotYourTurn, match="it is seat 2's turn"):
        play(s, 0, "pass")


def test_bid_must_be_at_least_one_above_the_current_bid() -> None:
    s = leader_auction(leader=0)
    s, _ = play(s, 0, "bid", amount=3)
    with pytest.raises(IllegalMove, match="least you may bid is 4"):
        play(s, 1, "bid", amount=3)
    s, _ = play(s, 1, "bid", amount=4)
    assert s.auction is not None and (s.auction.high_bid, s.auction.high_bidder) == (4, 1)


def test_bid_may_not_exceed_the_bidders_influence() -> None:
    s = leader_auction(leader=0)
    with pytest.raises(IllegalMove, match="bid 11 exceeds your 10 influence"):
        play(s, 0, "bid", amount=11)


def test_passing_does_not_take_a_player_out() -> None:
    s = leader_auction(leader=0)
    s, _ = play(s, 0, "pass")
    s, _ = play(s, 1, "bid", amount=2)
    s, _ = play(s, 2, "pass")
    s, _ = play(s, 0, "bid", amount=3)  # passed before, bids now
    assert s.auction is not None and s.auction.high_bidder == 0


def test_auction_ends_when_every_other_player_passed_since_the_last_bid() -> None:
    s = leader_auction(leader=0)
    s, _ = play(s, 0, "bid", amount=2)
    s, _ = play(s, 1, "bid", amount=5)
    s, _ = play(s, 2, "pass")
    assert s.phase == Phase.LEADER
    s, events = play(s, 0, "pass")
    assert of_type(events, "AuctionWon")[0].body == {"seat": 1, "bid": 5, "card": None, "reward": {}}
    assert s.leader == 1


def test_only_the_winner_pays_his_bid_to_the_supply() -> None:
    s = leader_auction(leader=0)
    s, _ = play(s, 0, "bid", amount=2)
    s, _ = play(s, 1, "bid", amount=5)
    s, _ = play(s, 2, "pass")
    s, _ = play(s, 0, "pass")
    assert [p.tokens[INFLUENCE] for p in s.players] == [10, 5, 10]


def test_no_bids_the_leader_keeps_the_marker() -> None:
    s = leader_auction(leader=2)
    s, _ = play(s, 2, "pass")
    s, _ = play(s, 0, "pass")
    s, events = play(s, 1, "pass")
    assert "AuctionUnsold" in types(events)
    assert s.leader == 2 and s.phase == Phase.MARKET


def test_market_phase_draws_players_minus_one_cards() -> None:
    for seats in (2, 4, 6):
        s = leader_auction(seats=seats, leader=0)
        f = new_tape(s, Dice())
        flow.begin(f, Phase.MARKET)
        assert len(f.state.market_row) == seats - 1
        assert of_type(f.events, "MarketCardsDrawn")[0].body["cards"] == market_names(range(seats - 1))


def test_market_auctions_start_with_the_new_leader() -> None:
    s = leader_auction(leader=0)
    s, _ = play(s, 0, "pass")
    s, _ = play(s, 1, "bid", amount=1)
    s, _ = play(s, 2, "pass")
    s, _ = play(s, 0, "pass")
    assert s.phase == Phase.MARKET and s.leader == 1
    assert s.auction is not None and s.auction.turn == 1 and s.auction.card == 0


def market(row: list[str], leader: int = 0, seats: int = 3) -> State:
    players = [player(influence=10) for _ in range(seats)]
    ids = tuple(MARKET_INDEX[c] for c in row)
    deck = tuple(i for i in range(25) if i not in ids)
    s = state(players, Phase.MARKET, leader=leader, market_row=ids, auction=auction(row[0], leader))
    return s._replace(market_deck=deck)


def test_market_winner_pays_and_gains_the_reward_at_once_and_the_card_is_discarded() -> None:
    s = market(["Asian Tiger", "Middle East"])
    s, _ = play(s, 0, "bid", amount=4)
    s, _ = play(s, 1, "pass")
    s, events = play(s, 2, "pass")
    won = of_type(events, "AuctionWon")[0].body
    assert won == {"seat": 0, "bid": 4, "card": "Asian Tiger", "reward": {"money": 13}}
    assert s.players[0].tokens[MONEY] == 13 and s.players[0].tokens[INFLUENCE] == 6
    assert s.market_discard == (MARKET_INDEX["Asian Tiger"],)
    # the next card is auctioned, in the order drawn, again starting with the leader
    assert s.auction is not None and s.auction.card == MARKET_INDEX["Middle East"] and s.auction.turn == 0


def test_unsold_market_card_is_discarded() -> None:
    s = market(["Middle East"], leader=1)
    for seat in (1, 2, 0):
        s, events = play(s, seat, "pass")
    assert "AuctionUnsold" in types(events)
    assert s.market_discard == (MARKET_INDEX["Middle East"],)
    assert all(p.tokens[VICTORY] == 0 for p in s.players)
    assert s.phase == Phase.RESOURCE


def test_market_deck_reshuffles_its_discard_when_it_runs_out() -> None:
    s = leader_auction(seats=4, leader=0)
    s = s._replace(market_deck=(3,), market_discard=(7, 8, 9, 10))
    f = new_tape(s, Dice())
    flow.begin(f, Phase.MARKET)
    drawn = ["PhaseStarted", "MarketCardsDrawn", "MarketDeckReshuffled", "MarketCardsDrawn"]
    assert types(f.events)[:4] == drawn
    reshuffle = of_type(f.events, "MarketDeckReshuffled")[0]
    assert reshuffle.visible_to == () and reshuffle.seen_by(0) == {"cards": None, "count": 4}
    assert len(f.state.market_row) == 3 and f.state.market_row[0] == 3
    assert len(f.state.market_deck) == 2 and f.state.market_discard == ()


def test_market_phase_skipped_goes_to_the_resource_phase() -> None:
    s = leader_auction(leader=0)
    s = s._replace(skipped=("market",))
    f = new_tape(s, Dice())
    flow.begin(f, Phase.MARKET)
    assert f.state.phase == Phase.RESOURCE and not f.state.market_row
