"""The immutable state of a Modern World match: named tuples of tuples (fast ``_replace``, equality by value).

Cards are indices into the tables of :mod:`.data`; decks list their top card first; hands and cards
in play are kept sorted so equal holdings compare equal.
"""

from __future__ import annotations

from typing import Any, NamedTuple, TypeVar

from services.games.base import Outcome
from services.games.modern_world.data import BASELINE, EVENTS, NO_TOKENS, RESOURCES

# Phases a match can wait in (plus "setup" before MatchStarted and "over" at the end).
SETUP, NATIONS, LEADER, MARKET, RESOURCE, INVESTMENT, TRADE, BUILD, END, OVER = (
    "setup", "nations", "leader", "market", "resource", "investment", "trade", "build", "end", "over",
)


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
    phase: str = SETUP
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


T = TypeVar("T", bound=tuple[Any, ...])


def _install_fast_replace(cls: type[T]) -> None:
    """Give a NamedTuple class a ``_replace`` several times faster than the generic one (which goes
    through ``_make`` and a ``map`` over ``dict.pop``); ``evolve`` replaces a state or player once
    or more per event, and profiling the replay fold showed the generic one as its main cost."""
    fields: tuple[str, ...] = getattr(cls, "_fields")  # noqa: B009
    index = {name: i for i, name in enumerate(fields)}
    new = tuple.__new__

    def _replace(self: T, **changes: Any) -> T:
        values = list(self)
        try:
            for name, value in changes.items():
                values[index[name]] = value
        except KeyError:
            raise ValueError(f"Got unexpected field names: {[n for n in changes if n not in index]!r}") from None
        return new(cls, values)

    setattr(cls, "_replace", _replace)  # noqa: B010  (NamedTuple forbids defining _replace in the class body)


for _cls in (Player, Auction, Trade, State):
    _install_fast_replace(_cls)


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
