"""The Game object: options, set-up, and the contract functions wired together."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from services.games.base import Command, Event, Outcome
from services.games.errors import BadOptions
from services.games.mad_zeppelin import acting, decide, legal, scoring, views
from services.games.mad_zeppelin.data import (
    ALL_CARDS,
    JOURNEY,
    REMOVED_BY_SEATS,
    START_GOLD,
)
from services.games.mad_zeppelin.evolve import evolve
from services.games.mad_zeppelin.flow import advance
from services.games.mad_zeppelin.state import State

NAME = "mad-zeppelin"


class MadZeppelinOptions(BaseModel):
    """Match options of Mad Zeppelin."""

    model_config = ConfigDict(extra="forbid")

    mode: Literal["run", "long_haul"] = Field(
        default="run", description="run: first to 20 points; long_haul: first to 30 points."
    )


def setup(options: Mapping[str, Any], seats: int, rng: random.Random) -> list[Event]:
    try:
        opts = MadZeppelinOptions.model_validate(dict(options))
    except ValidationError as e:
        problems = "; ".join(f"{'.'.join(map(str, err['loc'])) or 'options'}: {err['msg']}"
                             for err in e.errors())
        raise BadOptions(f"bad options for {NAME}: {problems}") from None
    if isinstance(seats, bool) or not isinstance(seats, int) or seats not in REMOVED_BY_SEATS:
        raise BadOptions(f"{NAME} is played by 2 to 6 players, not {seats}")
    events = [Event("MatchStarted", {"game": NAME, "seats": seats, "options": opts.model_dump()})]
    cargo = [kind for kind, count in ALL_CARDS.items() if kind != JOURNEY for _ in range(count)]
    rng.shuffle(cargo)
    cut = REMOVED_BY_SEATS[seats]
    removed, hold = cargo[:cut], cargo[cut:] + [JOURNEY] * ALL_CARDS[JOURNEY]
    rng.shuffle(hold)
    counts = {"removed_count": len(removed), "hold_count": len(hold)}
    events.append(Event("HoldPrepared", {"removed": sorted(removed), "hold": hold, **counts},
                        visible_to=(), redacted=counts))
    state = State()

    def apply(event: Event) -> None:
        nonlocal state
        state = evolve(state, event)

    for event in events:
        apply(event)

    def add(event: Event) -> None:
        events.append(event)
        apply(event)

    for seat in range(seats):
        add(Event("GoldTaken", {"seat": seat, "gold": min(START_GOLD, state.safe), "reason": "start"}))
        while state.hold[0] == JOURNEY:
            pay = {"seat": seat, "gold": min(1, state.safe)}
            add(Event("JourneyReturned", {**pay, "position": rng.randrange(len(state.hold))},
                      visible_to=(), redacted=pay))
        add(Event("CargoDrawn", {"seat": seat, "card": state.hold[0]}, visible_to=(seat,),
                  redacted={"seat": seat}))
    add(Event("TurnStarted", {"turn": 1, "leader": rng.randrange(seats)}))
    events += advance(state, rng)[1]
    return events


class MadZeppelin:
    name = NAME
    title = "Mad Zeppelin"
    min_seats = 2
    max_seats = 6
    Options: type[BaseModel] = MadZeppelinOptions

    def initial(self) -> State:
        return State()

    def setup(self, options: Mapping[str, Any], seats: int, rng: random.Random) -> list[Event]:
        return setup(options, seats, rng)

    def decide(self, state: State, command: Command, rng: random.Random) -> list[Event]:
        return decide.decide(state, command, rng)

    def evolve(self, state: State, event: Event) -> State:
        return evolve(state, event)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return views.view(state, seat)

    def legal_commands(self, state: State, seat: int) -> list[Command]:
        return legal.legal_commands(state, seat)

    def outcome(self, state: State) -> Outcome | None:
        return scoring.outcome(state)

    def to_act(self, state: State) -> frozenset[int]:
        return acting.to_act(state)


GAME = MadZeppelin()
