"""A test game whose commands hurt the processes that handle them; ``add`` works as in Tally.

- ``die`` kills the worker process (a poison command that no exception handler can catch);
- ``sleep`` {"s": seconds} holds the worker's loop that long in ``decide`` (a stalled loop), then adds 1;
- ``slow-view`` {"s": seconds}: building the views of the resulting state takes that long per view (a
  stalled projector loop); the next event makes views fast again;
- ``break-view``: building the views of the match raises from then on, until ``fix-view``.
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass, replace
from typing import Any

from services.games import register
from services.games.base import Command, Event, Seat
from services.pipeline.bench_game import Tally, TallyState

VIEW_ERROR = "the poison view is broken"


@dataclass(frozen=True, slots=True)
class PoisonState(TallyState):
    view_sleep_s: float = 0.0
    view_broken: bool = False


class Poison(Tally):
    name = "poison"
    title = "Poison (test game)"

    def initial(self) -> PoisonState:
        return PoisonState()

    def decide(self, state: TallyState, command: Command, rng: random.Random) -> list[Event]:
        if command.type == "die":
            os._exit(3)
        if command.type == "sleep":
            time.sleep(float(command.body.get("s", 1)))
            return [Event("Added", {"seat": command.seat, "n": 1})]
        if command.type == "slow-view":
            return [Event("ViewSlowed", {"s": float(command.body.get("s", 1))})]
        if command.type == "break-view":
            return [Event("ViewBroken", {})]
        if command.type == "fix-view":
            return [Event("ViewFixed", {})]
        return super().decide(state, command, rng)

    def evolve(self, state: TallyState, event: Event) -> PoisonState:
        if not isinstance(state, PoisonState):
            state = PoisonState(state.seats, state.total, state.max_total)
        if event.type == "MatchStarted":
            base = super().evolve(state, event)
            return PoisonState(base.seats, base.total, base.max_total)
        if event.type == "ViewSlowed":
            return replace(state, view_sleep_s=event.body["s"])
        if event.type == "ViewBroken":
            return replace(state, view_broken=True, view_sleep_s=0.0)
        if event.type == "ViewFixed":
            return replace(state, view_broken=False, view_sleep_s=0.0)
        return replace(state, total=state.total + event.body["n"], view_sleep_s=0.0)

    def view(self, state: TallyState, seat: Seat | None) -> dict[str, Any]:
        if isinstance(state, PoisonState):
            if state.view_broken:
                raise RuntimeError(VIEW_ERROR)
            if state.view_sleep_s:
                time.sleep(state.view_sleep_s)
        return super().view(state, seat)


POISON = register(Poison())
