"""The game object of Moderne Zeiten, made of the functions of this package (``services.games.skeleton``)."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from services.games.base import Event
from services.games.moderne_zeiten.data import MAX_SEATS, MIN_SEATS, PRINTED_BOARD, Board
from services.games.moderne_zeiten.decide import decide
from services.games.moderne_zeiten.evolve import evolve
from services.games.moderne_zeiten.legal import legal, to_act
from services.games.moderne_zeiten.schemas import GAME_NAME, Options
from services.games.moderne_zeiten.scoring import outcome
from services.games.moderne_zeiten.setup import TITLE, setup
from services.games.moderne_zeiten.state import State
from services.games.moderne_zeiten.views import view
from services.games.skeleton import MadeGame, make_game


def moderne_zeiten(board: Board = PRINTED_BOARD) -> MadeGame[State]:
    """The game, on the printed board or another printing of it (``board``)."""

    def initial() -> State:
        return State(board=board)

    def set_up(options: Mapping[str, Any], seats: int, rng: random.Random) -> list[Event]:
        return setup(options, seats, rng, board)

    return make_game(name=GAME_NAME, title=TITLE, seats=(MIN_SEATS, MAX_SEATS), options=Options, initial=initial,
                     setup=set_up, decide=decide, evolve=evolve, view=view, legal=legal, to_act=to_act,
                     outcome=outcome)


GAME = moderne_zeiten()

__all__ = ["GAME", "moderne_zeiten"]
