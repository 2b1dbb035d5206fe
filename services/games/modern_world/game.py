"""The Modern World game object: name, seats, options, and the contract methods delegating to the modules."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from schemas.legal import Choice
from services.games.base import Command, Event, Outcome, commands_of
from services.games.modern_world.decide import decide
from services.games.modern_world.evolve import HANDLERS
from services.games.modern_world.legal import legal, to_act
from services.games.modern_world.schemas import Options
from services.games.modern_world.setup import MAX_SEATS, MIN_SEATS, NAME, TITLE, setup
from services.games.modern_world.state import State
from services.games.modern_world.views import view


class ModernWorld:
    name = NAME
    title = TITLE
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS
    Options: type[BaseModel] = Options

    def initial(self) -> State:
        return State()

    def setup(self, options: Mapping[str, Any], seats: int, rng: random.Random) -> list[Event]:
        return setup(options, seats, rng)

    def decide(self, state: State, command: Command, rng: random.Random) -> list[Event]:
        return decide(state, command, rng)

    def evolve(self, state: State, event: Event) -> State:
        return HANDLERS[event.type](state, event.body)  # ``evolve(state, event)`` inlined: the replay fold

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return view(state, seat)

    def legal(self, state: State, seat: int) -> list[Choice]:
        return legal(state, seat)

    def legal_commands(self, state: State, seat: int) -> list[Command]:
        return commands_of(self.legal(state, seat), seat)

    def outcome(self, state: State) -> Outcome | None:
        return state.outcome

    def to_act(self, state: State) -> frozenset[int]:
        return to_act(state)


GAME = ModernWorld()

__all__ = ["GAME", "ModernWorld"]
