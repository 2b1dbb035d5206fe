"""Names on the wire <-> indices inside the rules, for tokens and cards."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from services.games.modern_world.data import (
    EVENT_INDEX,
    EVENTS,
    MARKET_INDEX,
    MARKETS,
    NO_TOKENS,
    RESOURCE_INDEX,
    RESOURCE_NAMES,
    TOKEN_INDEX,
    TOKENS,
)
from services.games.modern_world.schemas import Token


def token_map(tokens: Iterable[int]) -> dict[str, int]:
    """A token tuple as {name: count}, zero counts left out."""
    return {TOKENS[i]: n for i, n in enumerate(tokens) if n}


def token_tuple(counts: Mapping[str, int] | Mapping[Token, int]) -> tuple[int, ...]:
    if not counts:
        return NO_TOKENS
    out = [0] * 7
    for name, n in counts.items():
        out[TOKEN_INDEX[name]] += n
    return tuple(out)


def res_names(cards: Iterable[int]) -> list[str]:
    return [RESOURCE_NAMES[c] for c in cards]


def res_ids(names: Iterable[str]) -> tuple[int, ...]:
    return tuple(RESOURCE_INDEX[n] for n in names)


def market_name(card: int) -> str:
    return MARKETS[card].name


def market_names(cards: Iterable[int]) -> list[str]:
    return [MARKETS[c].name for c in cards]


def market_ids(names: Iterable[str]) -> tuple[int, ...]:
    return tuple(MARKET_INDEX[n] for n in names)


def event_name(card: int) -> str:
    return EVENTS[card].name


def event_names(cards: Iterable[int]) -> list[str]:
    return [EVENTS[c].name for c in cards]


def event_ids(names: Iterable[str]) -> tuple[int, ...]:
    return tuple(EVENT_INDEX[n] for n in names)
