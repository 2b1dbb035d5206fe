"""The auction: die roll, face-up cards, bidding round, payment one bill at a time."""

from __future__ import annotations

import random

import pytest

from services.games.base import Command
from services.games.errors import IllegalMove, NotYourTurn
from services.games.moderne_zeiten import GAME
from services.games.moderne_zeiten.decide import start_round
from services.games.moderne_zeiten.evolve import evolve
from services.games.moderne_zeiten.rules import payments
from services.games.moderne_zeiten.state import Phase, State
from services.games.moderne_zeiten.tests.helpers import (
    AUTO,
    AVI,
    SHIP,
    TEL,
    act,
    auction_state,
    of_type,
    turn_state,
    types,
)
from services.games.tape import Tape


def _round_from(stack: tuple[int, ...], seed: int) -> tuple[Tape[State], int]:
    state = turn_state(4, 2, stack=stack)._replace(turns_taken=4, current=-1)
    tape = Tape(state, evolve, random.Random(seed))
    start_round(tape)
    roll = tape.events[1].body["roll"]
    return tape, roll


def test_start_player_rolls_the_die_and_lays_that_many_cards_face_up() -> None:
    tape, roll = _round_from((SHIP, AVI, TEL, AUTO, SHIP, AVI, TEL, AUTO), seed=4)
    assert types(tape.events) == ["RoundStarted", "DieRolled", "CardsLaidOut"]
    assert tape.events[1].body["seat"] == 2 and tape.events[1].is_public
    laid = tape.events[2]
    assert laid.body["count"] == roll and laid.is_public
    names = ["shipping", "aviation", "telecom", "automobile", "shipping", "aviation"]
    assert laid.body["cards"] == names[:roll]
    assert tape.state.stack == (SHIP, AVI, TEL, AUTO, SHIP, AVI, TEL, AUTO)[roll:]
    assert tape.state.phase == Phase.AUCTION and tape.state.bidder == 2


def test_fewer_cards_are_laid_out_when_the_stack_is_short() -> None:
    for seed in range(30):
        tape, roll = _round_from((TEL,), seed)
        if roll > 1:
            assert tape.events[2].body == {"cards": ["telecom"], "count": 1}
            assert tape.state.stack == ()
            return
    pytest.fail("no roll above 1 in 30 seeds")


def test_no_auction_when_the_stack_is_empty() -> None:
    tape, _ = _round_from((), seed=1)
    assert types(tape.events) == ["RoundStarted", "DieRolled", "AuctionSkipped"]
    assert tape.state.phase == Phase.TURN and tape.state.current == 2


def test_bidding_goes_round_in_turn_order_from_the_start_player() -> None:
    state = auction_state(4, start=2)
    assert GAME.to_act(state) == frozenset({2})
    state, _ = act(state, 2, "bid", {"amount": 1})
    assert state.bidder == 3
    state, _ = act(state, 3, "pass")
    assert state.bidder == 0
    state, _ = act(state, 0, "bid", {"amount": 2})
    assert state.bidder == 1


def test_start_player_may_pass_instead_of_bidding() -> None:
    state, events = act(auction_state(4, start=1), 1, "pass")
    assert types(events) == ["Passed"] and state.bidder == 2


def test_bid_must_exceed_current_bid() -> None:
    state, _ = act(auction_state(4), 0, "bid", {"amount": 3})
    for amount in (3, 2):
        with pytest.raises(IllegalMove, match=f"bid {amount} must be higher than the current bid of 3"):
            GAME.decide(state, _cmd(1, amount), random.Random(0))


def test_bid_must_be_at_least_one_million() -> None:
    with pytest.raises(IllegalMove, match="higher than the current bid of 0"):
        GAME.decide(auction_state(4), _cmd(0, 0), random.Random(0))


def test_bid_may_not_exceed_the_bidders_money() -> None:
    state = auction_state(4, money=(5, 15, 15, 15))
    with pytest.raises(IllegalMove, match="bid 7 exceeds your 5 million"):
        GAME.decide(state, _cmd(0, 7), random.Random(0))
    after, _ = act(state, 0, "bid", {"amount": 5})
    assert after.high_bid == 5


def test_bid_may_raise_by_any_amount() -> None:
    state, _ = act(auction_state(4), 0, "bid", {"amount": 1})
    state, _ = act(state, 1, "bid", {"amount": 12})
    assert (state.high_bid, state.high_bidder) == (12, 1)


def test_a_player_who_passed_is_out_of_this_auction() -> None:
    state, _ = act(auction_state(4), 0, "pass")
    state, _ = act(state, 1, "bid", {"amount": 1})
    state, _ = act(state, 2, "bid", {"amount": 2})
    state, _ = act(state, 3, "bid", {"amount": 3})
    assert state.bidder == 1  # seat 0 is skipped
    with pytest.raises(NotYourTurn):
        GAME.decide(state, _cmd(0, 4), random.Random(0))


def test_auction_ends_when_all_but_the_high_bidder_passed() -> None:
    state, _ = act(auction_state(4, start=0), 0, "bid", {"amount": 2})
    state, _ = act(state, 1, "pass")
    state, _ = act(state, 2, "pass")
    state, events = act(state, 3, "pass")
    assert types(events) == ["Passed", "AuctionWon"]
    assert state.phase == Phase.TURN


def test_last_player_bidding_after_all_others_passed_wins_at_once() -> None:
    state = auction_state(3, start=0)
    state, _ = act(state, 0, "pass")
    state, _ = act(state, 1, "pass")
    state, events = act(state, 2, "bid", {"amount": 1})
    assert types(events) == ["BidMade", "AuctionWon"]
    assert state.start_player == 2


def test_high_bidder_takes_the_cards_pays_and_becomes_start_player() -> None:
    state = auction_state(4, start=0, lot=(AVI, AVI, TEL))
    state, _ = act(state, 0, "pass")
    state, _ = act(state, 1, "bid", {"amount": 4})
    state, _ = act(state, 2, "pass")
    state, events = act(state, 3, "pass")
    won = of_type(events, "AuctionWon")[0].body
    assert won == {"seat": 1, "amount": 4, "cards": {"aviation": 2, "telecom": 1}, "received": [1, 0, 2, 1]}
    assert state.hands[1] == (0, 2, 0, 0, 1)
    assert state.money == (16, 11, 17, 16)
    assert state.start_player == 1 and state.current == 1 and state.lot == ()


def test_seed_example_four_players_bid_7_pays_2_each_and_extra_to_the_left() -> None:
    assert payments(4, 0, 7) == [0, 3, 2, 2]
    assert payments(4, 2, 7) == [2, 2, 0, 3]


def test_three_players_bid_5_pays_3_to_the_left_and_2_to_the_next() -> None:
    assert payments(3, 0, 5) == [0, 3, 2]
    assert payments(3, 2, 5) == [3, 2, 0]


def test_payment_conserves_money() -> None:
    for seats in (3, 4, 5):
        for amount in range(0, 40):
            assert sum(payments(seats, 1, amount)) == amount


def test_no_bid_cards_go_under_the_stack_and_start_player_unchanged() -> None:
    state = auction_state(3, start=1, lot=(TEL, AUTO), stack=(SHIP, SHIP))
    for seat in (1, 2, 0):
        state, events = act(state, seat, "pass")
    assert types(events) == ["Passed", "AuctionUnsold"]
    assert state.stack == (SHIP, SHIP, TEL, AUTO)
    assert state.start_player == 1 and state.current == 1 and state.phase == Phase.TURN
    assert state.money == (15, 15, 15)


def test_legal_bids_are_bounded_by_money_and_above_the_high_bid() -> None:
    state = auction_state(4, money=(4, 15, 15, 15), high_bid=2, high_bidder=3)
    amounts = [c.body["amount"] for c in GAME.legal_commands(state, 0) if c.type == "bid"]
    assert amounts == [3, 4]
    broke = auction_state(4, money=(0, 20, 20, 20))
    assert [c.type for c in GAME.legal_commands(broke, 0)] == ["pass"]


def _cmd(seat: int, amount: int) -> Command:
    return Command(seat, "bid", {"amount": amount})
