"""The commands a seat may give now. Bids and card subsets are bounded, deterministic samples."""

from __future__ import annotations

from itertools import product

from services.games.base import Command
from services.games.moderne_zeiten.data import N_INDUSTRIES, cards_of
from services.games.moderne_zeiten.rules import move_choices
from services.games.moderne_zeiten.state import AUCTION, MOVING, TURN, State, choice_name

ALL_PLAYS_UP_TO = 48  # list every card combination when there are at most this many
BID_RAISES = (1, 2, 3, 5, 10)


def to_act(s: State) -> frozenset[int]:
    if s.phase == AUCTION:
        return frozenset((s.bidder,))
    if s.phase in (TURN, MOVING):
        return frozenset((s.current,))
    return frozenset()


def bids(s: State, seat: int) -> list[int]:
    money = s.money[seat]
    amounts = sorted({s.high_bid + r for r in BID_RAISES} | {money})
    return [a for a in amounts if s.high_bid < a <= money]


def plays(hand: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Card combinations to offer: all of them for a small hand, else a representative subset."""
    size = 1
    for n in hand:
        size *= n + 1
    if size - 1 <= ALL_PLAYS_UP_TO:
        return [c for c in product(*(range(n + 1) for n in hand)) if any(c)]
    out: list[tuple[int, ...]] = []
    for i in range(N_INDUSTRIES):
        for k in range(1, hand[i] + 1):
            out.append(tuple(k if j == i else 0 for j in range(N_INDUSTRIES)))
    one_each = tuple(min(n, 1) for n in hand)
    for extra in (one_each, hand):
        if extra not in out:
            out.append(extra)
    return out


def legal_commands(s: State, seat: int) -> list[Command]:
    if seat not in to_act(s):
        return []
    if s.phase == AUCTION:
        return [Command(seat, "pass"), *(Command(seat, "bid", {"amount": a}) for a in bids(s, seat))]
    if s.phase == MOVING:
        return [Command(seat, "move", {"to": choice_name(c)}) for c in s.choices]
    out = [Command(seat, "draw")]
    out.extend(Command(seat, "play", {"cards": cards_of(c)}) for c in plays(s.hands[seat]))
    if not s.move_needs_play and move_choices(s, seat):
        out.append(Command(seat, "play", {"cards": {}}))
    return out

