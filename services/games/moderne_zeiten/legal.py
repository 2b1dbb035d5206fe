"""What a seat may do now: :func:`legal` (every command :func:`~.decide.decide` accepts, as choices)
and :func:`to_act`.

- Auction: ``pass``, and ``bid`` with ``amount`` free from the current bid + 1 to the bidder's money
  (left out when he cannot outbid).
- Turn: ``draw``; ``play`` with ``cards`` free over the hand (up to the cards held of each industry,
  at least one card in all; left out with an empty hand); and, only when the option
  ``move_needs_play`` is off and a move is possible, the empty play ``{"cards": {}}`` as a choice of
  its own (it means "only move", not a play of some cards).
- Moving: one ``move`` per destination on offer (an industry, ``"finish"``, or ``None``: stay).
"""

from __future__ import annotations

from schemas.legal import Choice, Counts, IntRange
from services.games.moderne_zeiten.data import INDUSTRIES, N_INDUSTRIES
from services.games.moderne_zeiten.rules import move_choices
from services.games.moderne_zeiten.state import Phase, State, choice_name

PASS = Choice(type="pass")
DRAW = Choice(type="draw")


def to_act(s: State) -> frozenset[int]:
    phase = s.phase
    if phase == Phase.AUCTION:
        return frozenset((s.bidder,))
    if phase == Phase.TURN or phase == Phase.MOVING:
        return frozenset((s.current,))
    return frozenset()


def bid_range(s: State, seat: int) -> IntRange | None:
    """The amounts the seat may bid: above the current bid, at most his money; None when none."""
    money = s.money[seat]
    return IntRange(min=s.high_bid + 1, max=money) if money > s.high_bid else None


def hand_counts(s: State, seat: int) -> Counts | None:
    """Any cards of the seat's hand, at least one; None when the hand is empty."""
    hand = s.hands[seat]
    held = {INDUSTRIES[i]: hand[i] for i in range(N_INDUSTRIES) if hand[i]}
    return Counts(max=held, min_total=1, max_total=sum(hand)) if held else None


def legal(s: State, seat: int) -> list[Choice]:
    if seat not in to_act(s):
        return []
    if s.phase == Phase.AUCTION:
        amounts = bid_range(s, seat)
        return [PASS] if amounts is None else [PASS, Choice(type="bid", free={"amount": amounts})]
    if s.phase == Phase.MOVING:
        return [Choice(type="move", body={"to": choice_name(c)}) for c in s.choices]
    out = [DRAW]
    cards = hand_counts(s, seat)
    if cards is not None:
        out.append(Choice(type="play", free={"cards": cards}))
    if not s.move_needs_play and move_choices(s, seat):
        out.append(Choice(type="play", body={"cards": {}}))
    return out
