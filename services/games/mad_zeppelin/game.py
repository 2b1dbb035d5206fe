"""The game object of Mad Zeppelin, made of the functions of this package (``services.games.skeleton``).
``legal_commands`` is the canonical list: each command once (a throw's crates sorted, left out when none), so a
search bot's tree and an action space hold no duplicates, all of them among ``legal``'s; built directly, as it
runs at every step of a search bot's playouts (the legal tests check it equals
``services.games.base.commands_of(legal.canonical(state, seat), seat)``)."""

from __future__ import annotations

from services.games.mad_zeppelin.decide import decide
from services.games.mad_zeppelin.evolve import evolve
from services.games.mad_zeppelin.legal import canonical_commands, legal, to_act
from services.games.mad_zeppelin.schemas import GAME_NAME, Options
from services.games.mad_zeppelin.scoring import outcome
from services.games.mad_zeppelin.setup import MAX_SEATS, MIN_SEATS, TITLE, setup
from services.games.mad_zeppelin.state import State
from services.games.mad_zeppelin.views import view
from services.games.skeleton import make_game

NAME = GAME_NAME

GAME = make_game(name=GAME_NAME, title=TITLE, seats=(MIN_SEATS, MAX_SEATS), options=Options, initial=State,
                 setup=setup, decide=decide, evolve=evolve, view=view, legal=legal, to_act=to_act, outcome=outcome,
                 legal_commands=canonical_commands)

__all__ = ["GAME", "NAME"]
