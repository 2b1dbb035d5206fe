"""The event phase: flip the top event card and resolve it.

Ties for highest/lowest capacity are broken by every tied player rolling 1D6, lowest roll chosen,
re-rolling among those still tied. A "random player" is drawn by the seeded generator. Every roll and
choice is written into an event.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from services.games.modern_world.data import (
    ALL,
    EVENTS,
    EXTRA_MARKETS,
    GAIN,
    HIGHEST,
    LOSE,
    LOSE_ALL,
    NOBODY,
    PERMANENT,
    RANDOM,
    SKIP_BUILD,
    SKIP_PHASE,
    TOKENS,
    EventCard,
)

if TYPE_CHECKING:
    from services.games.modern_world.flow import Flow


def resolve_event(flow: Flow) -> None:
    s = flow.state
    card_id = s.event_deck[0]
    card = EVENTS[card_id]
    flow.emit("EventFlipped", {"card": card.name})
    for seat in _targets(flow, card):
        _apply(flow, card, seat)
    if card.effect == SKIP_PHASE:
        flow.emit("SkipOrdered", {"phase": card.phase, "seat": None})
    elif card.effect == EXTRA_MARKETS:
        flow.emit("MarketsAdded", {"count": card.amount})
    if not card.permanent:
        flow.emit("EventDiscarded", {"card": card.name})


def _targets(flow: Flow, card: EventCard) -> list[int]:
    s = flow.state
    if card.target == NOBODY:
        return []
    if card.target == ALL:
        return list(range(s.seats))
    if card.target == RANDOM:
        seat = flow.rng.randrange(s.seats)
        flow.emit("RandomPlayerChosen", {"seat": seat})
        return [seat]
    index = card.capacity
    if index is None:  # pragma: no cover - data tables always name the capacity
        return []
    caps = [p.capacity()[index] for p in s.players]
    best = max(caps) if card.target == HIGHEST else min(caps)
    tied = [i for i, c in enumerate(caps) if c == best]
    if len(tied) == 1:
        return tied
    rounds: list[list[list[int]]] = []
    while len(tied) > 1:
        rolls = [[seat, flow.rng.randint(1, 6)] for seat in tied]
        rounds.append(rolls)
        low = min(r for _, r in rolls)
        tied = [seat for seat, r in rolls if r == low]
    flow.emit(
        "TieBroken",
        {
            "capacity": TOKENS[index],
            "rule": card.target,
            "tied": [seat for seat, _ in rounds[0]],
            "rounds": rounds,
            "seat": tied[0],
        },
    )
    return tied


def _apply(flow: Flow, card: EventCard, seat: int) -> None:
    effect = card.effect
    if effect == PERMANENT:
        flow.emit("PermanentEventTaken", {"seat": seat, "card": card.name})
        return
    if effect == SKIP_BUILD:
        flow.emit("SkipOrdered", {"phase": "build", "seat": seat})
        return
    token = card.token
    if token is None:  # pragma: no cover - data tables always name the token
        return
    have = flow.state.players[seat].tokens[token]
    roll = flow.rng.randint(1, 6) if card.die else None
    amount = roll if roll is not None else card.amount
    if effect == LOSE_ALL:
        delta = -have
    elif effect == LOSE:
        delta = -min(have, amount)
    elif effect == GAIN:
        delta = amount
    else:  # pragma: no cover - every effect is handled above
        return
    flow.emit(
        "TokensChanged",
        {"seat": seat, "token": TOKENS[token], "delta": delta, "roll": roll, "card": card.name},
    )


__all__ = ["resolve_event"]
