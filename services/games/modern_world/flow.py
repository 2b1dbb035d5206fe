"""Moving the match along: the automatic phases (production, event) and the start of each phase.

Each function writes onto the decision's :class:`~services.games.tape.Tape` and reads its state (the
state after the events so far), so a command that finishes a phase runs on through the automatic
phases to the next decision.
"""

from __future__ import annotations

import random

from services.games.modern_world.codec import market_name, market_names, res_names, token_map
from services.games.modern_world.data import (
    HAND_LIMIT,
    MARKETS,
    TABLEAU_SIZE,
    TOKENS,
    VICTORY,
)
from services.games.modern_world.evolve import evolve
from services.games.modern_world.happenings import resolve_event
from services.games.modern_world.state import Phase, State
from services.games.tape import Tape

__all__ = ["auction_over", "begin", "deal_tableau", "new_tape", "phase_over", "start_turn"]

Flow = Tape[State]


def new_tape(state: State, rng: random.Random | None = None) -> Flow:
    """A tape over ``state`` that applies Modern World's ``evolve``."""
    return Tape(state, evolve, rng)


def deal_tableau(tape: Flow) -> None:
    tape.emit("TableauDealt", {"cards": res_names(tape.state.resource_deck[:TABLEAU_SIZE])})


def start_turn(tape: Flow) -> None:
    """Start a turn: end the match if a deck is empty, else produce, resolve the event, open the leader
    auction."""
    s = tape.state
    if not s.resource_deck or not s.event_deck:
        reason = "resource deck empty" if not s.resource_deck else "event deck empty"
        scores = [p.tokens[VICTORY] for p in s.players]
        best = max(scores)
        winners = [i for i, v in enumerate(scores) if v == best]
        tape.emit("GameEnded", {"reason": reason, "scores": scores, "winners": winners})
        return
    tape.emit("TurnStarted", {"turn": s.turn + 1})
    tape.emit("TokensProduced", {"gains": [token_map(p.capacity()) for p in s.players]})
    resolve_event(tape)
    begin(tape, Phase.LEADER)


def begin(tape: Flow, phase: Phase) -> None:
    """Start ``phase``; run on through phases that need no decision."""
    while True:
        if _start(tape, phase):
            return
        if phase == Phase.END:
            start_turn(tape)
            return
        phase = _NEXT[phase]


def phase_over(tape: Flow) -> None:
    """The current phase has no more decisions: go on to the next one."""
    phase = tape.state.phase
    if phase == Phase.END:
        start_turn(tape)
    else:
        begin(tape, _NEXT[phase])


def _start(tape: Flow, phase: Phase) -> bool:
    """Open ``phase``; True when it waits for a decision."""
    s = tape.state
    name = phase.value
    if phase in s.skipped:
        tape.emit("PhaseSkipped", {"phase": name, "seat": None})
        return False
    order = s.order_from(s.leader)
    if phase == Phase.LEADER:
        tape.emit("PhaseStarted", {"phase": name, "order": list(order)})
        tape.emit("AuctionStarted", {"card": None, "first": s.leader})
        return True
    if phase == Phase.MARKET:
        tape.emit("PhaseStarted", {"phase": name, "order": list(order)})
        _draw_markets(tape, s.seats - 1 + s.extra_markets)
        return _next_market_auction(tape)
    if phase == Phase.INVESTMENT:
        order = tuple(i for i in order if s.players[i].hand)
    elif phase == Phase.BUILD:
        for seat in s.skip_build:
            tape.emit("PhaseSkipped", {"phase": name, "seat": seat})
        order = tuple(i for i in order if s.players[i].hand and i not in s.skip_build)
    elif phase == Phase.END:
        order = tuple(i for i in order if len(s.players[i].hand) > HAND_LIMIT)
    tape.emit("PhaseStarted", {"phase": name, "order": list(order)})
    return bool(order)


def _draw_markets(tape: Flow, count: int) -> None:
    deck = tape.state.market_deck
    if len(deck) < count:
        if deck:
            tape.emit("MarketCardsDrawn", {"cards": market_names(deck)})
            count -= len(deck)
        pile = list(tape.state.market_discard)
        tape.rng.shuffle(pile)
        tape.emit(
            "MarketDeckReshuffled",
            {"cards": market_names(pile), "count": len(pile)},
            visible_to=(),
            redacted={"cards": None, "count": len(pile)},
        )
        deck = tape.state.market_deck
    count = min(count, len(deck))
    if count:
        tape.emit("MarketCardsDrawn", {"cards": market_names(deck[:count])})


def _next_market_auction(tape: Flow) -> bool:
    """Open the auction for the next drawn market card; False when none is left."""
    s = tape.state
    if not s.market_row:
        return False
    tape.emit("AuctionStarted", {"card": market_name(s.market_row[0]), "first": s.leader})
    return True


def auction_over(tape: Flow) -> None:
    """Close the running auction (everyone else passed) and move on."""
    s = tape.state
    a = s.auction
    if a is None:  # pragma: no cover - callers only close running auctions
        return
    card = None if a.card is None else market_name(a.card)
    if a.high_bidder is None:
        tape.emit("AuctionUnsold", {"card": card})
    else:
        reward: dict[str, int] = {}
        if a.card is not None:
            m = MARKETS[a.card]
            reward = {TOKENS[m.token]: m.amount}
        body = {"seat": a.high_bidder, "bid": a.high_bid, "card": card, "reward": reward}
        tape.emit("AuctionWon", body)
    if tape.state.phase == Phase.MARKET and _next_market_auction(tape):
        return
    phase_over(tape)


_NEXT = {
    Phase.LEADER: Phase.MARKET,
    Phase.MARKET: Phase.RESOURCE,
    Phase.RESOURCE: Phase.INVESTMENT,
    Phase.INVESTMENT: Phase.TRADE,
    Phase.TRADE: Phase.BUILD,
    Phase.BUILD: Phase.END,
}
