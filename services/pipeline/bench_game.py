"""Tally, a game for benchmarks of the pipeline: every seat may add 1-9 at any time; it never ends on
its own (``max_total`` ends it). Its rules cost next to nothing, so a benchmark measures the pipeline.
Not a built-in game, and it does not register itself: ``airship bench`` registers it
(:func:`services.bench.register_tally`) and gives it to the workers it starts through
``AIRSHIP_GAME_MODULES=services.pipeline.bench_game:TALLY``; tests register it in their conftest.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from pydantic import BaseModel, ConfigDict

from schemas.game_schemas import MATCH_ABANDONED
from schemas.legal import Choice, IntRange
from services.games.abandon import abandoned_outcome
from services.games.base import Command, Event, Outcome, Seat, commands_of
from services.games.errors import BadCommand, BadOptions, GameOver
from services.games.fields import int_field


class TallyOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    max_total: int = 1_000_000_000


@dataclass(frozen=True, slots=True)
class TallyState:
    seats: int = 0
    total: int = 0
    max_total: int = 0
    abandoned: bool = False


class Tally:
    name = "tally"
    title = "Tally (benchmark game)"
    min_seats = 1
    max_seats = 16
    Options: type[BaseModel] = TallyOptions

    def initial(self) -> TallyState:
        return TallyState()

    def setup(self, options: Mapping[str, Any], seats: int, rng: random.Random) -> list[Event]:
        if not self.min_seats <= seats <= self.max_seats:
            raise BadOptions(f"tally takes 1 to 16 players, not {seats}")
        opts = TallyOptions.model_validate(dict(options))
        return [Event("MatchStarted", {"game": self.name, "seats": seats, "options": opts.model_dump()})]

    def decide(self, state: TallyState, command: Command, rng: random.Random) -> list[Event]:
        if self.outcome(state) is not None:
            raise GameOver("the tally is complete")
        if command.type != "add":
            raise BadCommand(f"unknown command '{command.type}'; tally knows: add")
        return [Event("Added", {"seat": command.seat, "n": int_field(command.body, "n", 1, 9)})]

    def evolve(self, state: TallyState, event: Event) -> TallyState:
        if event.type == "MatchStarted":
            return TallyState(seats=event.body["seats"], max_total=event.body["options"]["max_total"])
        if event.type == MATCH_ABANDONED:
            return replace(state, abandoned=True)
        return replace(state, total=state.total + event.body["n"])

    def view(self, state: TallyState, seat: Seat | None) -> dict[str, Any]:
        outcome = self.outcome(state)
        return {"total": state.total, "to_act": sorted(self.to_act(state)), "finished": outcome is not None,
                "outcome": outcome.as_dict() if outcome else None}

    def legal(self, state: TallyState, seat: Seat) -> list[Choice]:
        if seat not in self.to_act(state):
            return []
        return [Choice(type="add", free={"n": IntRange(min=1, max=9)})]

    def legal_commands(self, state: TallyState, seat: Seat) -> list[Command]:
        return commands_of(self.legal(state, seat), seat)

    def outcome(self, state: TallyState) -> Outcome | None:
        if state.abandoned:
            return abandoned_outcome(state.seats)
        if state.total < state.max_total:
            return None
        return Outcome((0,) * state.seats, ())

    def to_act(self, state: TallyState) -> frozenset[Seat]:
        return frozenset(range(state.seats)) if self.outcome(state) is None else frozenset()


TALLY = Tally()
