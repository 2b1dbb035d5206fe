"""Applying events: one small function per event type. No randomness, no validation."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from schemas.game_schemas import MATCH_ABANDONED
from services.games.moderne_zeiten.data import (
    BIG_MARKERS,
    CARDS_PER_INDUSTRY,
    INDUSTRY_INDEX,
    N_INDUSTRIES,
    START_MONEY,
    counts_of,
    tally,
)
from services.games.moderne_zeiten.state import NO_CARDS, NOBODY, UNCLAIMED, Phase, State, choice_code
from services.games.skeleton import evolver

Body = dict[str, Any]

# The phases bound once: reading a member off an enum class costs as much as a small handler here.
SETUP, AUCTION, TURN, MOVING, OVER = Phase.SETUP, Phase.AUCTION, Phase.TURN, Phase.MOVING, Phase.OVER


def _put(row: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*row[:index], value, *row[index + 1 :])


def _add(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(map(operator.add, a, b))  # equal lengths: per-industry or per-seat rows


def _sub(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(map(operator.sub, a, b))


def _next_bidder(passed: tuple[bool, ...], seat: int) -> int:
    n = len(passed)
    for step in range(1, n + 1):
        other = (seat + step) % n
        if not passed[other]:
            return other
    return NOBODY


def match_started(s: State, b: Body) -> State:
    n = b["seats"]
    options = b["options"]
    return State(
        board=s.board,
        phase=SETUP,
        seats=n,
        forced_move=options["forced_move"],
        move_needs_play=options["move_needs_play"],
        crash_after_move=options["crash_after_move"],
        stack=tuple(i for i in range(N_INDUSTRIES) for _ in range(CARDS_PER_INDUSTRY)),
        hands=(NO_CARDS,) * n,
        played=(NO_CARDS,) * n,
        money=(START_MONEY,) * n,
        big_left=(BIG_MARKERS,) * n,
        position=(0,) * n,
        claims=(UNCLAIMED,) * len(s.board.track),
        passed=(False,) * n,
    )


def stack_shuffled(s: State, b: Body) -> State:
    return s._replace(stack=tuple(map(INDUSTRY_INDEX.__getitem__, b["order"])))


def cards_dealt(s: State, b: Body) -> State:
    seat = b["seat"]
    return s._replace(
        hands=_put(s.hands, seat, _add(s.hands[seat], counts_of(b["cards"]))), stack=s.stack[b["count"] :]
    )


def start_player_chosen(s: State, b: Body) -> State:
    return s._replace(start_player=b["seat"])


def round_started(s: State, b: Body) -> State:
    return s._replace(
        phase=AUCTION, round=b["round"], lot=(), high_bid=0, high_bidder=NOBODY,
        passed=(False,) * s.seats, bidder=s.start_player, current=NOBODY, turns_taken=0, played_now=0,
    )


def die_rolled(s: State, b: Body) -> State:
    return s


def cards_laid_out(s: State, b: Body) -> State:
    count = b["count"]
    return s._replace(lot=s.stack[:count], stack=s.stack[count:])


def _turn_of(s: State, seat: int, **changes: Any) -> State:
    """The auction is over: ``seat`` (the start player) begins the round's turns."""
    return s._replace(
        phase=TURN, current=seat, bidder=NOBODY, lot=(), high_bid=0, high_bidder=NOBODY,
        passed=(False,) * s.seats, played_now=0, choices=(), **changes,
    )


def auction_skipped(s: State, b: Body) -> State:
    return _turn_of(s, s.start_player)


def bid_made(s: State, b: Body) -> State:
    seat = b["seat"]
    return s._replace(high_bid=b["amount"], high_bidder=seat, bidder=_next_bidder(s.passed, seat))


def passed(s: State, b: Body) -> State:
    seat = b["seat"]
    out = _put(s.passed, seat, True)
    return s._replace(passed=out, bidder=_next_bidder(out, seat))


def auction_won(s: State, b: Body) -> State:
    seat = b["seat"]
    money = _add(s.money, tuple(b["received"]))
    money = _put(money, seat, money[seat] - b["amount"])
    hands = _put(s.hands, seat, _add(s.hands[seat], tally(s.lot)))
    return _turn_of(s, seat, money=money, hands=hands, start_player=seat)


def auction_unsold(s: State, b: Body) -> State:
    return _turn_of(s, s.start_player, stack=s.stack + s.lot)


def cards_drawn(s: State, b: Body) -> State:
    seat = b["seat"]
    return s._replace(
        hands=_put(s.hands, seat, _add(s.hands[seat], counts_of(b["cards"]))), stack=s.stack[b["count"] :]
    )


def cards_played(s: State, b: Body) -> State:
    seat = b["seat"]
    cards = counts_of(b["cards"])
    return s._replace(
        hands=_put(s.hands, seat, _sub(s.hands[seat], cards)),
        played=_put(s.played, seat, _add(s.played[seat], cards)),
        played_now=s.played_now + b["count"],
    )


def control_taken(s: State, b: Body) -> State:
    return s._replace(controller=_put(s.controller, INDUSTRY_INDEX[b["industry"]], b["seat"]))


def move_awaited(s: State, b: Body) -> State:
    return s._replace(phase=MOVING, choices=tuple(choice_code(c) for c in b["choices"]))


def zeppelin_moved(s: State, b: Body) -> State:
    seat, space = b["seat"], b["space"]
    return s._replace(
        phase=TURN, choices=(),
        position=_put(s.position, seat, space),
        claims=_put(s.claims, space - 1, seat),
        big_left=_put(s.big_left, seat, s.big_left[seat] - 1),
    )


def move_declined(s: State, b: Body) -> State:
    return s._replace(phase=TURN, choices=())


def market_crashed(s: State, b: Body) -> State:
    gone = [INDUSTRY_INDEX[name] for name in b["industries"]]
    played = tuple(tuple(0 if i in gone else c for i, c in enumerate(row)) for row in s.played)
    back = tuple(i for i in gone for row in s.played for _ in range(row[i]))
    controller = tuple(NOBODY if i in gone else c for i, c in enumerate(s.controller))
    return s._replace(played=played, stack=s.stack + back, controller=controller)


def turn_ended(s: State, b: Body) -> State:
    current = NOBODY if s.last_turn else (b["seat"] + 1) % s.seats
    return s._replace(turns_taken=s.turns_taken + 1, current=current, played_now=0, choices=(), phase=TURN)


def zeppelin_finished(s: State, b: Body) -> State:
    seat = b["seat"]
    return s._replace(position=_put(s.position, seat, s.board.finish), ender=seat, choices=(), phase=TURN)


def game_ended(s: State, b: Body) -> State:
    return s._replace(phase=OVER, current=NOBODY, bidder=NOBODY)


def match_abandoned(s: State, b: Body) -> State:
    return s._replace(phase=OVER, current=NOBODY, bidder=NOBODY, choices=(), abandoned=True)


HANDLERS: dict[str, Callable[[State, Body], State]] = {
    "MatchStarted": match_started,
    "StackShuffled": stack_shuffled,
    "CardsDealt": cards_dealt,
    "StartPlayerChosen": start_player_chosen,
    "RoundStarted": round_started,
    "DieRolled": die_rolled,
    "CardsLaidOut": cards_laid_out,
    "AuctionSkipped": auction_skipped,
    "BidMade": bid_made,
    "Passed": passed,
    "AuctionWon": auction_won,
    "AuctionUnsold": auction_unsold,
    "CardsDrawn": cards_drawn,
    "CardsPlayed": cards_played,
    "ControlTaken": control_taken,
    "MoveAwaited": move_awaited,
    "ZeppelinMoved": zeppelin_moved,
    "MoveDeclined": move_declined,
    "MarketCrashed": market_crashed,
    "TurnEnded": turn_ended,
    "ZeppelinFinished": zeppelin_finished,
    "GameEnded": game_ended,
    MATCH_ABANDONED: match_abandoned,
}


evolve = evolver(HANDLERS)
"""``evolve(state, event)``: the handler of the event's type (``services.games.skeleton.evolver``)."""
