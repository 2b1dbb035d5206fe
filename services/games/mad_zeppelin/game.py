"""The game object of Mad Zeppelin: what the registry holds, each contract method delegating to the
module that implements it."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from schemas.legal import Choice
from services.games.base import Command, Event, Outcome
from services.games.mad_zeppelin import decide as _decide
from services.games.mad_zeppelin import legal as _legal
from services.games.mad_zeppelin import setup as _setup
from services.games.mad_zeppelin.evolve import evolve as _evolve
from services.games.mad_zeppelin.schemas import GAME_NAME, Options
from services.games.mad_zeppelin.scoring import outcome as _outcome
from services.games.mad_zeppelin.state import State
from services.games.mad_zeppelin.views import view as _view

NAME = GAME_NAME


class MadZeppelin:
    name = GAME_NAME
    title = _setup.TITLE
    min_seats = _setup.MIN_SEATS
    max_seats = _setup.MAX_SEATS
    Options: type[BaseModel] = Options

    def initial(self) -> State:
        return State()

    def setup(self, options: Mapping[str, Any], seats: int, rng: random.Random) -> list[Event]:
        return _setup.setup(options, seats, rng)

    # decide and evolve run hundreds of thousands of times a second in playouts: the functions themselves,
    # not methods calling them (a call less each)
    decide = staticmethod(_decide.decide)
    evolve = staticmethod(_evolve)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return _view(state, seat)

    def legal(self, state: State, seat: int) -> list[Choice]:
        return _legal.legal(state, seat)

    def legal_commands(self, state: State, seat: int) -> list[Command]:
        # commands_of(canonical choices): each command once (a throw's crates sorted, left out when none),
        # so a search bot's tree and an action space hold no duplicates; all of them are among legal's.
        # Built directly: it runs at every step of a search bot's playouts (the legal tests check it equals
        # services.games.base.commands_of(_legal.canonical(state, seat), seat)).
        return _legal.canonical_commands(state, seat)

    def outcome(self, state: State) -> Outcome | None:
        return _outcome(state)

    def to_act(self, state: State) -> frozenset[int]:
        return _legal.to_act(state)


GAME = MadZeppelin()

__all__ = ["GAME", "NAME", "MadZeppelin"]
