"""Set-up: the options, the Hold (Cargo less the removed cards, the Journey cards shuffled in), each
player's 3 Gold and first card, the random first leader; then the first game turn's automatic steps."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from services.games.base import Event
from services.games.kit import check_options
from services.games.mad_zeppelin.data import ALL_CARDS, JOURNEY, REMOVED_BY_SEATS, START_GOLD
from services.games.mad_zeppelin.evolve import evolve
from services.games.mad_zeppelin.flow import advance
from services.games.mad_zeppelin.schemas import GAME_NAME, Options
from services.games.mad_zeppelin.state import State
from services.games.tape import Tape

TITLE = "Mad Zeppelin"
MIN_SEATS, MAX_SEATS = min(REMOVED_BY_SEATS), max(REMOVED_BY_SEATS)


def setup(options: Mapping[str, Any], seats: int, rng: random.Random) -> list[Event]:
    opts = check_options(Options, TITLE, MIN_SEATS, MAX_SEATS, options, seats)
    tape = Tape(State(), evolve, rng)
    tape.emit("MatchStarted", {"game": GAME_NAME, "seats": seats, "options": opts.model_dump()})
    cargo = [kind for kind, count in ALL_CARDS.items() if kind != JOURNEY for _ in range(count)]
    rng.shuffle(cargo)
    cut = REMOVED_BY_SEATS[seats]
    removed, hold = cargo[:cut], cargo[cut:] + [JOURNEY] * ALL_CARDS[JOURNEY]
    rng.shuffle(hold)
    counts = {"removed_count": len(removed), "hold_count": len(hold)}
    tape.emit("HoldPrepared", {"removed": sorted(removed), "hold": hold, **counts}, visible_to=(), redacted=counts)
    for seat in range(seats):
        tape.emit("GoldTaken", {"seat": seat, "gold": min(START_GOLD, tape.state.safe), "reason": "start"})
        while tape.state.hold[0] == JOURNEY:
            pay = {"seat": seat, "gold": min(1, tape.state.safe)}
            tape.emit("JourneyReturned", {**pay, "position": rng.randrange(len(tape.state.hold))},
                      visible_to=(), redacted=pay)
        tape.emit("CargoDrawn", {"seat": seat, "card": tape.state.hold[0]}, visible_to=(seat,),
                  redacted={"seat": seat})
    tape.emit("TurnStarted", {"turn": 1, "leader": rng.randrange(seats)})
    advance(tape)
    return tape.events
