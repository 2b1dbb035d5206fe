"""Set-up: the checked options, the shuffled stack, the deal, the random first start player, round 1."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from services.games.base import Event
from services.games.kit import check_options
from services.games.moderne_zeiten.data import (
    HAND_SIZE,
    INDUSTRIES,
    MAX_SEATS,
    MIN_SEATS,
    PRINTED_BOARD,
    Board,
    cards_of,
    tally,
)
from services.games.moderne_zeiten.decide import start_round
from services.games.moderne_zeiten.evolve import evolve
from services.games.moderne_zeiten.schemas import GAME_NAME, Options
from services.games.moderne_zeiten.state import State
from services.games.tape import Tape

TITLE = "Moderne Zeiten"


def setup(options: Mapping[str, Any], seats: int, rng: random.Random, board: Board = PRINTED_BOARD) -> list[Event]:
    """``MatchStarted`` first, then the deal and the first round's die and lot. The board is the one
    the match is played on (it changes no set-up event; the state built from them needs it)."""
    opts = check_options(Options, TITLE, MIN_SEATS, MAX_SEATS, options, seats)
    tape: Tape[State] = Tape(State(board=board), evolve, rng)
    tape.emit("MatchStarted", {"game": GAME_NAME, "seats": seats, "options": opts.model_dump()})
    order = list(tape.state.stack)
    rng.shuffle(order)
    tape.emit(
        "StackShuffled",
        {"order": [INDUSTRIES[c] for c in order], "count": len(order)},
        visible_to=(),
        redacted={"count": len(order)},
    )
    for seat in range(seats):
        cards = cards_of(tally(tape.state.stack[:HAND_SIZE]))
        tape.emit(
            "CardsDealt",
            {"seat": seat, "cards": cards, "count": HAND_SIZE},
            visible_to=(seat,),
            redacted={"seat": seat, "count": HAND_SIZE},
        )
    tape.emit("StartPlayerChosen", {"seat": rng.randrange(seats)})
    start_round(tape)
    return tape.events
