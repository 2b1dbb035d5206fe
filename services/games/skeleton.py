"""The skeleton every game shares, so a game writes only its rules: the decide prologue with one order and one
wording of the rejections, the evolve dispatcher, the view header, and the game object made from functions.

A small game can be one module of functions plus its registration::

    GAME = make_game(name="liars-dice", title="Liar's Dice", seats=(2, 4), options=Options, initial=State,
                     setup=setup, decide=decide, events=EVENTS, view=view, legal=legal, to_act=to_act,
                     outcome=outcome)

- :func:`prologue` is how ``decide`` starts: the match must run, the body is read strictly against its command
  model, the seat must exist; then the game checks whose turn it is (:func:`not_your_turn` words it) and what
  the phase allows, and dispatches on the command type.
- ``events`` maps an event type to ``handler(state, body) -> state``; :func:`evolver` makes ``evolve`` of it.
- ``view(state, seat)`` returns the game's own fields; the game object puts the header every view starts with
  before them (:func:`view_header`: ``seat``, ``to_act``, ``finished``, ``outcome``; the schema side is
  :class:`schemas.game_schemas.GameView`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Mapping
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from schemas.legal import Choice
from services.games.base import Body, Command, Event, Outcome, Seat, commands_of
from services.games.errors import GAME_OVER, NOT_STARTED, BadCommand, GameOver, IllegalMove, NotYourTurn
from services.games.kit import parse_body

S = TypeVar("S")
M = TypeVar("M", bound=BaseModel)

Handler = Callable[[S, Body], S]


def prologue(models: Mapping[str, type[M]], command: Command, seats: int, *, over: bool,
             started: bool = True) -> tuple[Seat, M]:
    """The checks every ``decide`` starts with, in this order: the match is over (:class:`GameOver`), it has not
    started (:class:`IllegalMove`), the body is not one of the command's model (:class:`BadCommand`, strict:
    :func:`services.games.kit.parse_body`), there is no such seat (:class:`BadCommand`). Returns the seat and
    the typed body."""
    if over:
        raise GameOver(GAME_OVER)
    if not started:
        raise IllegalMove(NOT_STARTED)
    body = parse_body(models, command.type, command.body)
    seat = command.seat
    if type(seat) is not int or not 0 <= seat < seats:  # not a bool either
        raise BadCommand(f"there is no seat {seat!r} in this match of {seats} seats")
    return seat, body


def not_your_turn(acting: Collection[Seat], doing: str) -> NotYourTurn:
    """The one wording of "not your turn": who the match waits for, and for what (``doing``: "bid or pass")."""
    if not acting:
        return NotYourTurn(f"it is nobody's turn to {doing}")
    if len(acting) == 1:
        return NotYourTurn(f"it is seat {next(iter(acting))}'s turn to {doing}")
    return NotYourTurn(f"it is not your turn: waiting for seats {', '.join(map(str, sorted(acting)))} to {doing}")


def evolver(handlers: Mapping[str, Handler[S]]) -> Callable[[S, Event], S]:
    """``evolve(state, event)``: the handler of the event's type applied to its body (no check: ``decide`` only
    writes known events, and a log is trusted)."""

    def evolve(state: S, event: Event) -> S:
        return handlers[event.type](state, event.body)

    return evolve


def view_header(seat: Seat | None, acting: Collection[Seat], outcome: Outcome | None) -> dict[str, Any]:
    """The fields every view starts with: whose view, who acts, whether and how the match ended."""
    return {"seat": seat, "to_act": sorted(acting), "finished": outcome is not None,
            "outcome": outcome.as_dict() if outcome is not None else None}


class MadeGame(Generic[S]):
    """A game object made of the functions of a game's module (see :func:`make_game`). The contract's functions
    are stored as they are, so calling ``game.decide`` or ``game.evolve`` costs no extra call; ``view`` adds the
    header to the game's own fields."""

    def __init__(self, *, name: str, title: str, seats: tuple[int, int], options: type[BaseModel],
                 initial: Callable[[], S], setup: Callable[[Mapping[str, Any], int, random.Random], list[Event]],
                 decide: Callable[[S, Command, random.Random], list[Event]], evolve: Callable[[S, Event], S],
                 view: Callable[[S, Seat | None], Body], legal: Callable[[S, Seat], list[Choice]],
                 to_act: Callable[[S], frozenset[Seat]], outcome: Callable[[S], Outcome | None],
                 legal_commands: Callable[[S, Seat], list[Command]] | None = None) -> None:
        self.name = name
        self.title = title
        self.min_seats, self.max_seats = seats
        self.Options = options
        self.initial = initial
        self.setup = setup
        self.decide = decide
        self.evolve = evolve
        self.legal = legal
        self.to_act = to_act
        self.outcome = outcome
        self.fields = view
        self._legal_commands = legal_commands

    def view(self, state: S, seat: Seat | None) -> Body:
        return {**view_header(seat, self.to_act(state), self.outcome(state)), **self.fields(state, seat)}

    def legal_commands(self, state: S, seat: Seat) -> list[Command]:
        """The game's own, else a bounded concrete list drawn from ``legal``
        (:func:`services.games.base.commands_of`)."""
        if self._legal_commands is not None:
            return self._legal_commands(state, seat)
        return commands_of(self.legal(state, seat), seat)

    def __repr__(self) -> str:
        return f"<game {self.name}>"


def make_game(*, name: str, title: str, seats: tuple[int, int], options: type[BaseModel], initial: Callable[[], S],
              setup: Callable[[Mapping[str, Any], int, random.Random], list[Event]],
              decide: Callable[[S, Command, random.Random], list[Event]],
              view: Callable[[S, Seat | None], Body], legal: Callable[[S, Seat], list[Choice]],
              to_act: Callable[[S], frozenset[Seat]], outcome: Callable[[S], Outcome | None],
              events: Mapping[str, Handler[S]] | None = None, evolve: Callable[[S, Event], S] | None = None,
              legal_commands: Callable[[S, Seat], list[Command]] | None = None) -> MadeGame[S]:
    """The game object of a game's functions: ``evolve``, or ``events`` (type -> handler) to dispatch on."""
    if (events is None) == (evolve is None):
        raise TypeError("make_game: give either evolve or events (type -> handler), not both or neither")
    return MadeGame(name=name, title=title, seats=seats, options=options, initial=initial, setup=setup,
                    decide=decide, evolve=evolve if evolve is not None else evolver(events or {}), view=view,
                    legal=legal, to_act=to_act, outcome=outcome, legal_commands=legal_commands)
