"""The one way ``decide`` writes events: onto a :class:`Tape` that knows the state they lead to.

A decision appends events with :meth:`Tape.emit`; reading :attr:`Tape.state` applies the pending
ones with the game's own ``evolve``, so a later step of the same decision (a crash after a move, the
automatic phases after the last bid) sees exactly the state ``evolve`` will build. Events are applied
lazily: a decision that never looks at the state after its last event does not pay for evolving it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Generic, TypeVar

from services.games.base import Body, Event, Seat

S = TypeVar("S")


class Tape(Generic[S]):
    """The events of one decision so far, and the state after them."""

    __slots__ = ("_evolve", "_pending", "_state", "events", "rng")

    def __init__(self, state: S, evolve: Callable[[S, Event], S], rng: random.Random | None = None) -> None:
        self._state = state
        self._evolve = evolve
        self._pending: list[Event] = []
        self.events: list[Event] = []
        self.rng = rng if rng is not None else random.Random(0)

    @property
    def state(self) -> S:
        if self._pending:
            s = self._state
            for event in self._pending:
                s = self._evolve(s, event)
            self._state = s
            self._pending.clear()
        return self._state

    def emit(self, type_: str, body: Body, visible_to: tuple[Seat, ...] | None = None,
             redacted: Body | None = None) -> Event:
        event = Event(type_, body, visible_to, redacted)
        self.events.append(event)
        self._pending.append(event)
        return event

    def extend(self, events: list[Event]) -> None:
        for event in events:
            self.events.append(event)
            self._pending.append(event)


__all__ = ["Tape"]
