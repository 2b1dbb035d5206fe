"""Moving the match along: the automatic phases (production, event) and the start of each phase.

`Flow` collects the events a decision causes and keeps the state they lead to, so a command that
finishes a phase can run on through the automatic phases to the next decision.
"""

from __future__ import annotations

import random
from typing import Any

from services.games.base import Event
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
from services.games.modern_world.state import (
    BUILD,
    END,
    INVESTMENT,
    LEADER,
    MARKET,
    RESOURCE,
    TRADE,
    State,
)

__all__ = ["Flow"]


class Flow:
    """The events of one decision so far, and the state after them.

    Events are applied lazily: a decision that never looks at the state after its last event (most
    of them) does not pay for evolving it twice.
    """

    __slots__ = ("_pending", "_state", "events", "rng")

    def __init__(self, state: State, rng: random.Random) -> None:
        self._state = state
        self._pending: list[Event] = []
        self.rng = rng
        self.events: list[Event] = []

    @property
    def state(self) -> State:
        if self._pending:
            s = self._state
            for event in self._pending:
                s = evolve(s, event)
            self._state = s
            self._pending.clear()
        return self._state

    @state.setter
    def state(self, value: State) -> None:
        self._state = value
        self._pending.clear()

    def emit(
        self,
        type_: str,
        body: dict[str, Any],
        visible_to: tuple[int, ...] | None = None,
        redacted: dict[str, Any] | None = None,
    ) -> None:
        event = Event(type_, body, visible_to, redacted)
        self.events.append(event)
        self._pending.append(event)

    # ------------------------------------------------------------------ turn and phases

    def deal_tableau(self) -> None:
        self.emit("TableauDealt", {"cards": res_names(self.state.resource_deck[:TABLEAU_SIZE])})

    def start_turn(self) -> None:
        """Start a turn: end the match if a deck is empty, else produce, resolve the event, open the leader
        auction."""
        s = self.state
        if not s.resource_deck or not s.event_deck:
            reason = "resource deck empty" if not s.resource_deck else "event deck empty"
            scores = [p.tokens[VICTORY] for p in s.players]
            best = max(scores)
            winners = [i for i, v in enumerate(scores) if v == best]
            self.emit("GameEnded", {"reason": reason, "scores": scores, "winners": winners})
            return
        self.emit("TurnStarted", {"turn": s.turn + 1})
        self.emit("TokensProduced", {"gains": [token_map(p.capacity()) for p in s.players]})
        resolve_event(self)
        self.begin(LEADER)

    def begin(self, phase: str) -> None:
        """Start ``phase``; run on through phases that need no decision."""
        while True:
            if self._start(phase):
                return
            if phase == END:
                self.start_turn()
                return
            phase = _NEXT[phase]

    def phase_over(self) -> None:
        """The current phase has no more decisions: go on to the next one."""
        phase = self.state.phase
        if phase == END:
            self.start_turn()
        else:
            self.begin(_NEXT[phase])

    def _start(self, phase: str) -> bool:
        """Open ``phase``; True when it waits for a decision."""
        s = self.state
        if phase in s.skipped:
            self.emit("PhaseSkipped", {"phase": phase, "seat": None})
            return False
        order = s.order_from(s.leader)
        if phase == LEADER:
            self.emit("PhaseStarted", {"phase": LEADER, "order": list(order)})
            self.emit("AuctionStarted", {"card": None, "first": s.leader})
            return True
        if phase == MARKET:
            self.emit("PhaseStarted", {"phase": MARKET, "order": list(order)})
            self.draw_markets(s.seats - 1 + s.extra_markets)
            return self.next_market_auction()
        if phase == INVESTMENT:
            order = tuple(i for i in order if s.players[i].hand)
        elif phase == BUILD:
            for seat in s.skip_build:
                self.emit("PhaseSkipped", {"phase": BUILD, "seat": seat})
            order = tuple(i for i in order if s.players[i].hand and i not in s.skip_build)
        elif phase == END:
            order = tuple(i for i in order if len(s.players[i].hand) > HAND_LIMIT)
        self.emit("PhaseStarted", {"phase": phase, "order": list(order)})
        return bool(order)

    def draw_markets(self, count: int) -> None:
        deck = self.state.market_deck
        if len(deck) < count:
            if deck:
                self.emit("MarketCardsDrawn", {"cards": market_names(deck)})
                count -= len(deck)
            pile = list(self.state.market_discard)
            self.rng.shuffle(pile)
            self.emit(
                "MarketDeckReshuffled",
                {"cards": market_names(pile), "count": len(pile)},
                visible_to=(),
                redacted={"cards": None, "count": len(pile)},
            )
            deck = self.state.market_deck
        count = min(count, len(deck))
        if count:
            self.emit("MarketCardsDrawn", {"cards": market_names(deck[:count])})

    def next_market_auction(self) -> bool:
        """Open the auction for the next drawn market card; False when none is left."""
        s = self.state
        if not s.market_row:
            return False
        self.emit("AuctionStarted", {"card": market_name(s.market_row[0]), "first": s.leader})
        return True

    def auction_over(self) -> None:
        """Close the running auction (everyone else passed) and move on."""
        s = self.state
        a = s.auction
        if a is None:  # pragma: no cover - callers only close running auctions
            return
        card = None if a.card is None else market_name(a.card)
        if a.high_bidder is None:
            self.emit("AuctionUnsold", {"card": card})
        else:
            reward: dict[str, int] = {}
            if a.card is not None:
                m = MARKETS[a.card]
                reward = {TOKENS[m.token]: m.amount}
            body = {"seat": a.high_bidder, "bid": a.high_bid, "card": card, "reward": reward}
            self.emit("AuctionWon", body)
        if self.state.phase == MARKET and self.next_market_auction():
            return
        self.phase_over()


_NEXT = {LEADER: MARKET, MARKET: RESOURCE, RESOURCE: INVESTMENT, INVESTMENT: TRADE, TRADE: BUILD, BUILD: END}
