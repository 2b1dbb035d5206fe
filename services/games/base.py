"""The game contract every game module follows.

A game is a set of pure functions over an immutable state:

- ``setup(options, seats, rng) -> list[Event]``: the match's first events. The first is always
  ``MatchStarted`` carrying the validated options and seat count, so a log replays from ``initial()``
  without anything else (no seed needed).
- ``decide(state, command, rng) -> list[Event]``: the events a command causes, or raises a
  :class:`~services.games.errors.Rejected` subclass. Never mutates.
- ``evolve(state, event) -> state``: applies one event. No randomness, no validation, no I/O.
- ``view(state, seat | None) -> dict``: what that seat (or a spectator, ``None``) may see; JSON-able.
- ``legal(state, seat) -> list[Choice]``: *every* command ``decide`` would accept now, as choices
  (:mod:`schemas.legal`): one command each, or a command type with free fields described for the
  client to expand (a bid's range, the cards of a hand). What ``decide`` accepts is covered, and what
  the choices describe is accepted (the shared conformance suite checks both on random states).
- ``legal_commands(state, seat) -> list[Command]``: a bounded concrete list drawn from ``legal``
  (:func:`schemas.legal.concrete`) for search bots and PettingZoo action spaces.
- ``outcome(state) -> Outcome | None``: None while running.
- ``to_act(state) -> frozenset[int]``: the seats that have a decision to make now.

Randomness comes only from the ``rng`` argument, which the caller derives from the match seed and
the match version (:func:`services.games.rng.derive_rng`). Every random outcome is written into an
event; ``evolve`` only copies it.

Hidden information: an :class:`Event` whose ``visible_to`` is not None carries secrets that only those
seats may see; everyone else sees ``redacted`` instead of ``body``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel

from schemas.legal import Choice, concrete

Seat = int
Body = dict[str, Any]
S = TypeVar("S")


@dataclass(frozen=True, slots=True)
class Event:
    """One fact of a match. ``body`` holds only msgpack/JSON-able primitives.

    ``visible_to``: None means public; otherwise the seats that may see ``body``. Others (and the
    public feed) see ``redacted`` (a body with the secrets removed; {} if None).
    """

    type: str
    body: Body
    visible_to: tuple[Seat, ...] | None = None
    redacted: Body | None = None

    def seen_by(self, seat: Seat | None) -> Body:
        """The body as ``seat`` (None: a spectator) may see it."""
        if self.visible_to is None or (seat is not None and seat in self.visible_to):
            return self.body
        return self.redacted if self.redacted is not None else {}

    @property
    def is_public(self) -> bool:
        return self.visible_to is None


@dataclass(frozen=True, slots=True)
class Command:
    """A seat's request. ``body`` holds only msgpack/JSON-able primitives."""

    seat: Seat
    type: str
    body: Body = field(default_factory=dict)

    def describe(self) -> str:
        args = " ".join(f"{k}={v}" for k, v in self.body.items())
        return f"{self.type} {args}".strip()


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of a finished match. ``winners`` may be empty (nobody won) or several (shared win)."""

    scores: tuple[int, ...]
    winners: tuple[Seat, ...]
    detail: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> Body:
        return {"scores": list(self.scores), "winners": list(self.winners), "detail": dict(self.detail)}


class Game(Protocol, Generic[S]):
    """What the ``GAMES`` registry holds: one object per game exposing the contract."""

    name: str
    title: str
    min_seats: int
    max_seats: int
    Options: type[BaseModel]

    def initial(self) -> S:
        """The empty state before ``MatchStarted``."""
        ...

    def setup(self, options: Mapping[str, Any], seats: int, rng: random.Random) -> list[Event]: ...

    def decide(self, state: S, command: Command, rng: random.Random) -> list[Event]: ...

    def evolve(self, state: S, event: Event) -> S: ...

    def view(self, state: S, seat: Seat | None) -> Body: ...

    def legal(self, state: S, seat: Seat) -> list[Choice]: ...

    def legal_commands(self, state: S, seat: Seat) -> list[Command]: ...

    def outcome(self, state: S) -> Outcome | None: ...

    def to_act(self, state: S) -> frozenset[Seat]: ...


def replay(game: Game[S], events: list[Event]) -> S:
    """Rebuild a state from its log: ``reduce(evolve, events, initial)``."""
    state = game.initial()
    for event in events:
        state = game.evolve(state, event)
    return state


def commands_of(choices: list[Choice], seat: Seat, per_choice: int = 48) -> list[Command]:
    """``legal_commands`` from ``legal``: every command of a small choice, a spread of a large one."""
    return [Command(seat, kind, body) for kind, body in concrete(choices, per_choice)]
