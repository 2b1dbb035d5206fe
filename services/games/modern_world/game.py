"""The game object of Modern World, made of the functions of this package (``services.games.skeleton``)."""

from __future__ import annotations

from services.games.base import Outcome
from services.games.modern_world.decide import decide
from services.games.modern_world.evolve import evolve
from services.games.modern_world.legal import legal, to_act
from services.games.modern_world.schemas import Options
from services.games.modern_world.setup import MAX_SEATS, MIN_SEATS, NAME, TITLE, setup
from services.games.modern_world.state import State
from services.games.modern_world.views import view
from services.games.skeleton import make_game


def outcome(state: State) -> Outcome | None:
    return state.outcome


GAME = make_game(name=NAME, title=TITLE, seats=(MIN_SEATS, MAX_SEATS), options=Options, initial=State, setup=setup,
                 decide=decide, evolve=evolve, view=view, legal=legal, to_act=to_act, outcome=outcome)

__all__ = ["GAME"]
