"""The game object of Moderne Zeiten: what the registry holds, each contract method delegating to the
module that implements it."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from services.games.base import Command, Event, Outcome, commands_of
from services.games.moderne_zeiten.data import MAX_SEATS, MIN_SEATS, PRINTED_BOARD, Board
from services.games.moderne_zeiten.decide import decide
from services.games.moderne_zeiten.evolve import evolve
from services.games.moderne_zeiten.legal import legal, to_act
from services.games.moderne_zeiten.schemas import GAME_NAME, Options
from services.games.moderne_zeiten.scoring import outcome
from services.games.moderne_zeiten.setup import TITLE, setup
from services.games.moderne_zeiten.state import State
from services.games.moderne_zeiten.views import view


class ModerneZeiten:
    """The game object for the registry. ``board`` lets another printing of the board be loaded."""

    name = GAME_NAME
    title = TITLE
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS
    Options: type[BaseModel] = Options

    def __init__(self, board: Board = PRINTED_BOARD) -> None:
        self.board = board

    def initial(self) -> State:
        return State(board=self.board)

    def setup(self, options: Mapping[str, Any], seats: int, rng: random.Random) -> list[Event]:
        return setup(options, seats, rng, self.board)

    # The module functions themselves (no extra call per command and per event in the hot loops):
    # decide(state, command, rng), evolve(state, event), view(state, seat), legal(state, seat), to_act(state).
    decide = staticmethod(decide)
    evolve = staticmethod(evolve)
    view = staticmethod(view)
    legal = staticmethod(legal)
    to_act = staticmethod(to_act)

    def legal_commands(self, state: State, seat: int) -> list[Command]:
        return commands_of(self.legal(state, seat), seat)

    def outcome(self, state: State) -> Outcome | None:
        return outcome(state)


GAME = ModerneZeiten()

__all__ = ["GAME", "ModerneZeiten"]
