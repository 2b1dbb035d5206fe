"""The event phase: flip the top event card and resolve it (onto the decision's tape).

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
    from services.games.modern_world.state import State
    from services.games.tape import Tape

    Flow = Tape[State]


def resolve_event(tape: Flow) -> None:
    s = tape.state
    card_id = s.event_deck[0]
    card = EVENTS[card_id]
    tape.emit("EventFlipped", {"card": card.name})
    for seat in _targets(tape, card):
        _apply(tape, card, seat)
    if card.effect == SKIP_PHASE:
        tape.emit("SkipOrdered", {"phase": card.phase, "seat": None})
    elif card.effect == EXTRA_MARKETS:
        tape.emit("MarketsAdded", {"count": card.amount})
    if not card.permanent:
        tape.emit("EventDiscarded", {"card": card.name})


def _targets(tape: Flow, card: EventCard) -> list[int]:
    s = tape.state
    if card.target == NOBODY:
        return []
    if card.target == ALL:
        return list(range(s.seats))
    if card.target == RANDOM:
        seat = tape.rng.randrange(s.seats)
        tape.emit("RandomPlayerChosen", {"seat": seat})
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
        rolls = [[seat, tape.rng.randint(1, 6)] for seat in tied]
        rounds.append(rolls)
        low = min(r for _, r in rolls)
        tied = [seat for seat, r in rolls if r == low]
    tape.emit(
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


def _apply(tape: Flow, card: EventCard, seat: int) -> None:
    effect = card.effect
    if effect == PERMANENT:
        tape.emit("PermanentEventTaken", {"seat": seat, "card": card.name})
        return
    if effect == SKIP_BUILD:
        tape.emit("SkipOrdered", {"phase": "build", "seat": seat})
        return
    token = card.token
    if token is None:  # pragma: no cover - data tables always name the token
        return
    have = tape.state.players[seat].tokens[token]
    roll = tape.rng.randint(1, 6) if card.die else None
    amount = roll if roll is not None else card.amount
    if effect == LOSE_ALL:
        delta = -have
    elif effect == LOSE:
        delta = -min(have, amount)
    elif effect == GAIN:
        delta = amount
    else:  # pragma: no cover - every effect is handled above
        return
    tape.emit(
        "TokensChanged",
        {"seat": seat, "token": TOKENS[token], "delta": delta, "roll": roll, "card": card.name},
    )


__all__ = ["resolve_event"]
