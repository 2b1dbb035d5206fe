"""A test game whose ``die`` command kills the worker process (a poison command that no exception
handler can catch); ``add`` works as in Tally."""

from __future__ import annotations

import os
import random

from services.games import register
from services.games.base import Command, Event
from services.pipeline.bench_game import Tally, TallyState


class Poison(Tally):
    name = "poison"
    title = "Poison (test game)"

    def decide(self, state: TallyState, command: Command, rng: random.Random) -> list[Event]:
        if command.type == "die":
            os._exit(3)
        return super().decide(state, command, rng)


POISON = register(Poison())
