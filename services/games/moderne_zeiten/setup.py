"""Match options and set-up: the shuffled stack, the deal, the random first start player."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from services.games.base import Event
from services.games.errors import BadOptions
from services.games.moderne_zeiten.data import HAND_SIZE, INDUSTRIES, MAX_SEATS, MIN_SEATS, cards_of, tally
from services.games.moderne_zeiten.decide import Tape, start_round
from services.games.moderne_zeiten.state import State

GAME_NAME = "moderne-zeiten"


class Options(BaseModel):
    """Match options: each is a choice the rules file marks *(option)*."""

    model_config = ConfigDict(extra="forbid")

    forced_move: bool = Field(
        True, description="Moving the Zeppelin is compulsory when possible (off: a player may stay)."
    )
    move_needs_play: bool = Field(
        True,
        description="Moving needs at least one card played this turn (the Essen rule); "
        "off: a player may play no cards and only move.",
    )
    crash_after_move: bool = Field(
        True, description="The market crash check comes after the move (off: right after the play)."
    )


def validate_options(options: Mapping[str, Any], seats: int) -> Options:
    if isinstance(seats, bool) or not isinstance(seats, int) or not MIN_SEATS <= seats <= MAX_SEATS:
        raise BadOptions(f"Moderne Zeiten is for {MIN_SEATS} to {MAX_SEATS} players, not {seats!r}")
    try:
        return Options.model_validate(dict(options))
    except (ValidationError, TypeError, ValueError) as e:
        raise BadOptions(f"bad options for Moderne Zeiten: {e}") from None


def setup(initial: State, options: Mapping[str, Any], seats: int, rng: random.Random) -> list[Event]:
    opts = validate_options(options, seats)
    tape = Tape(initial)
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
    start_round(tape, rng)
    return tape.events
