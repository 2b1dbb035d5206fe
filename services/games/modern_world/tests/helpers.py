"""Helpers for the Modern World tests: build states directly, feed commands, fix the dice."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

from services.games.base import Command, Event
from services.games.modern_world import GAME
from services.games.modern_world.codec import event_ids, market_ids, res_ids, token_tuple
from services.games.modern_world.data import EVENTS, MARKETS, RESOURCE_COPIES, RESOURCES
from services.games.modern_world.state import PHASE_OF, Auction, Phase, Player, State
from tests.games.harness import start


class Dice(random.Random):
    """An rng whose dice (randint) and random players (randrange) come from fixed lists."""

    def __init__(self, rolls: Iterable[int] = (), picks: Iterable[int] = ()) -> None:
        super().__init__(0)
        self.rolls = list(rolls)
        self.picks = list(picks)

    def randint(self, a: int, b: int) -> int:
        return self.rolls.pop(0)

    def randrange(self, *args: Any, **kwargs: Any) -> int:
        return self.picks.pop(0)


def tokens(**counts: int) -> tuple[int, ...]:
    return token_tuple(counts)


def player(hand: Sequence[str] = (), in_play: Sequence[str] = (), permanents: Sequence[str] = (),
           **counts: int) -> Player:
    return Player(
        tokens=token_tuple(counts),
        hand=tuple(sorted(res_ids(hand))),
        in_play=tuple(sorted(res_ids(in_play))),
        permanents=event_ids(permanents),
    )


def full_resource_deck() -> tuple[int, ...]:
    return tuple(i for i in range(len(RESOURCES)) for _ in range(RESOURCE_COPIES))


def state(
    players: Sequence[Player],
    phase: Phase | str,
    *,
    queue: Sequence[int] = (),
    tableau: Sequence[str] = (),
    deck: Sequence[str] | None = None,
    market_deck: Sequence[str] | None = None,
    event_deck: Sequence[str] | None = None,
    **fields: Any,
) -> State:
    """A running match in ``phase``. Decks default to whole decks in table order (never empty)."""
    n = len(players)
    return State(
        seats=n,
        phase=PHASE_OF[phase],
        turn=1,
        players=tuple(players),
        queue=tuple(queue),
        tableau=res_ids(tableau),
        resource_deck=full_resource_deck() if deck is None else res_ids(deck),
        market_deck=tuple(range(len(MARKETS))) if market_deck is None else market_ids(market_deck),
        event_deck=tuple(range(len(EVENTS))) if event_deck is None else event_ids(event_deck),
        proposals=(0,) * n,
        **fields,
    )


def auction(card: str | None, turn: int, high_bid: int = 0, high_bidder: int | None = None,
            passes: int = 0) -> Auction:
    return Auction(None if card is None else market_ids([card])[0], turn, high_bid, high_bidder, passes)


def play(s: State, seat: int, type_: str, rng: random.Random | None = None, **body: Any
         ) -> tuple[State, list[Event]]:
    """Decide ``type_`` for ``seat`` and evolve the events; returns the new state and the events."""
    events = GAME.decide(s, Command(seat, type_, body), rng or random.Random(1))
    for e in events:
        s = GAME.evolve(s, e)
    return s, events


def types(events: list[Event]) -> list[str]:
    return [e.type for e in events]


def of_type(events: list[Event], type_: str) -> list[Event]:
    return [e for e in events if e.type == type_]


def new_match(seats: int = 3, seed: int = 0, **options: Any) -> tuple[State, list[Event]]:
    return start(GAME, seats, options, seed)


__all__ = ["GAME", "Dice", "auction", "new_match", "of_type", "play", "player", "state", "tokens", "types"]
