"""The immutable state of a Modern World match: named tuples of tuples (fast ``_replace``, equality by value).

Cards are indices into the tables of :mod:`.data`; decks list their top card first; hands and cards
in play are kept sorted so equal holdings compare equal.
"""

from __future__ import annotations

import enum
from typing import NamedTuple

from services.games.base import Outcome
from services.games.kit import fast_replace
from services.games.modern_world.data import (
    BASELINE,
    BUILD_COST,
    BUILD_COST_DUPLICATE,
    EVENTS,
    NO_TOKENS,
    RESOURCES,
)
from services.games.modern_world.schemas import PHASES


class Phase(enum.StrEnum):
    """The phases a match can wait in (plus ``SETUP`` before MatchStarted and ``OVER`` at the end).

    A member is a ``str`` equal to its wire value; events and views carry ``.value`` (a plain str)."""

    SETUP = "setup"
    NATIONS = "nations"
    LEADER = "leader"
    MARKET = "market"
    RESOURCE = "resource"
    INVESTMENT = "investment"
    TRADE = "trade"
    BUILD = "build"
    END = "end"
    OVER = "over"


assert tuple(Phase) == PHASES, "Phase must list the wire contract's phases, in order"
PHASE_OF: dict[str, Phase] = {p.value: p for p in Phase}
"""A phase's wire value -> the member (a dict lookup: faster than ``Phase(value)`` in ``evolve``)."""


class Player(NamedTuple):
    tokens: tuple[int, ...] = NO_TOKENS
    hand: tuple[int, ...] = ()
    in_play: tuple[int, ...] = ()
    permanents: tuple[int, ...] = ()  # event cards saddled on this player
    nation: str | None = None

    def capacity(self) -> tuple[int, ...]:
        """What this player produces: baseline + cards in play + permanent events, never below 0."""
        cap = list(BASELINE)
        for card in self.in_play:
            for i, n in enumerate(RESOURCES[card].production):
                cap[i] += n
        for ev in self.permanents:
            e = EVENTS[ev]
            if e.token is not None:
                cap[e.token] += e.amount
        return tuple(c if c > 0 else 0 for c in cap)


class Auction(NamedTuple):
    """A running auction. ``card`` is the market card (None: the leader marker)."""

    card: int | None
    turn: int  # seat to bid or pass next
    high_bid: int = 0
    high_bidder: int | None = None
    passes: int = 0  # consecutive passes since the last bid (or since the start)


class Trade(NamedTuple):
    """An open proposal: ``give`` goes from ``frm`` to ``to``, ``get`` from ``to`` to ``frm``."""

    id: int
    frm: int
    to: int
    give_cards: tuple[int, ...]
    give_tokens: tuple[int, ...]
    get_cards: tuple[int, ...]
    get_tokens: tuple[int, ...]


class State(NamedTuple):
    seats: int = 0
    national_identity: bool = False
    phase: Phase = Phase.SETUP
    turn: int = 0
    leader: int = 0
    players: tuple[Player, ...] = ()
    resource_deck: tuple[int, ...] = ()
    tableau: tuple[int, ...] = ()  # index 0 costs 1, farthest from the deck
    resource_discard: tuple[int, ...] = ()
    market_deck: tuple[int, ...] = ()
    market_row: tuple[int, ...] = ()  # drawn this turn, still to be auctioned, in order
    market_discard: tuple[int, ...] = ()
    event_deck: tuple[int, ...] = ()
    event_discard: tuple[int, ...] = ()
    current_event: int | None = None
    auction: Auction | None = None
    queue: tuple[int, ...] = ()  # sequential phases: seats still to act, the first acts now
    builds: int = 0  # builds by the current builder this phase
    done: tuple[int, ...] = ()  # trade phase: seats that declared themselves done
    trades: tuple[Trade, ...] = ()
    next_trade_id: int = 1
    proposals: tuple[int, ...] = ()  # per seat, proposals made this trade phase
    skipped: tuple[str, ...] = ()  # phases everyone skips this turn
    skip_build: tuple[int, ...] = ()  # seats that skip this turn's build phase
    extra_markets: int = 0
    nations_left: tuple[str, ...] = ()
    outcome: Outcome | None = None

    def order_from(self, first: int) -> tuple[int, ...]:
        return tuple((first + i) % self.seats for i in range(self.seats))


for _cls in (Player, Auction, Trade, State):
    fast_replace(_cls)


def sorted_add(cards: tuple[int, ...], add: tuple[int, ...] | list[int]) -> tuple[int, ...]:
    return tuple(sorted(cards + tuple(add)))


def remove_cards(cards: tuple[int, ...], remove: tuple[int, ...] | list[int]) -> tuple[int, ...]:
    """``cards`` without one copy of each of ``remove`` (the caller has checked they are there)."""
    out = list(cards)
    for c in remove:
        out.remove(c)
    return tuple(out)


def has_cards(cards: tuple[int, ...], wanted: tuple[int, ...] | list[int]) -> bool:
    need: dict[int, int] = {}
    for c in wanted:
        need[c] = need.get(c, 0) + 1
    return all(cards.count(c) >= n for c, n in need.items())


def add_tokens(tokens: tuple[int, ...], delta: tuple[int, ...] | list[int], sign: int = 1) -> tuple[int, ...]:
    return tuple(a + sign * b for a, b in zip(tokens, delta, strict=True))


def covers(tokens: tuple[int, ...], need: tuple[int, ...]) -> bool:
    return all(a >= b for a, b in zip(tokens, need, strict=True))


def build_cost(state: State, seat: int, card: int) -> int:
    """What building ``card`` costs ``seat`` now, in materials and in labor alike."""
    base = BUILD_COST_DUPLICATE if card in state.players[seat].in_play else BUILD_COST
    return base + state.builds


def open_proposals(state: State, seat: int) -> int:
    """Proposals by ``seat`` not yet accepted, declined, refused or lapsed."""
    return sum(1 for t in state.trades if t.frm == seat)
