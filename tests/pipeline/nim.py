"""A tiny game for pipeline tests: take 1-3 from a pile; whoever takes the last wins.

Each seat is also dealt a secret number (a hidden-information event), so the tests can check that
views and public feeds never leak it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from pydantic import BaseModel, ConfigDict

from schemas.game_schemas import MATCH_ABANDONED
from schemas.legal import Choice
from services.games import register
from services.games.abandon import abandoned_outcome
from services.games.base import Command, Event, Outcome, Seat, commands_of
from services.games.errors import BadCommand, BadOptions, GameOver, IllegalMove, NotYourTurn
from services.games.fields import int_field


class NimOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    max_take: int = 3


@dataclass(frozen=True)
class NimState:
    seats: int = 0
    pile: int = 0
    turn: int = 0
    max_take: int = 3
    secrets: tuple[int, ...] = ()
    winner: int | None = None
    abandoned: bool = False


class Nim:
    name = "nim"
    title = "Nim (test game)"
    min_seats = 2
    max_seats = 4
    Options = NimOptions

    def initial(self) -> NimState:
        return NimState()

    def setup(self, options: Mapping[str, Any], seats: int, rng: random.Random) -> list[Event]:
        if not self.min_seats <= seats <= self.max_seats:
            raise BadOptions(f"nim needs 2 to 4 players, not {seats}")
        opts = NimOptions.model_validate(dict(options))
        events = [Event("MatchStarted", {"game": self.name, "seats": seats, "options": opts.model_dump()}),
                  Event("PileSet", {"pile": rng.randint(7, 15)})]
        events += [Event("SecretDealt", {"seat": s, "secret": rng.randint(1, 100)}, (s,), {"seat": s})
                   for s in range(seats)]
        return events

    def decide(self, state: NimState, command: Command, rng: random.Random) -> list[Event]:
        if self.outcome(state) is not None:
            raise GameOver("the game is over")
        if command.type == "explode":
            raise ZeroDivisionError("a bug in the rules, for tests of the worker's failure handling")
        if command.type != "take":
            raise BadCommand(f"unknown command '{command.type}'; nim knows: take")
        if command.seat != state.turn:
            raise NotYourTurn(f"it is seat {state.turn}'s turn")
        n = int_field(command.body, "n", 1, state.max_take)
        if n > state.pile:
            raise IllegalMove(f"only {state.pile} left")
        return [Event("Taken", {"seat": command.seat, "n": n})]

    def evolve(self, state: NimState, event: Event) -> NimState:
        body = event.body
        if event.type == "MatchStarted":
            return NimState(seats=body["seats"], max_take=body["options"]["max_take"],
                            secrets=(0,) * body["seats"])
        if event.type == "PileSet":
            return replace(state, pile=body["pile"])
        if event.type == MATCH_ABANDONED:
            return replace(state, abandoned=True)
        if event.type == "SecretDealt":
            secrets = list(state.secrets)
            secrets[body["seat"]] = body["secret"]
            return replace(state, secrets=tuple(secrets))
        pile = state.pile - body["n"]
        return replace(state, pile=pile, turn=(state.turn + 1) % state.seats,
                       winner=body["seat"] if pile == 0 else None)

    def view(self, state: NimState, seat: Seat | None) -> dict[str, Any]:
        outcome = self.outcome(state)
        return {"seat": seat, "seats": state.seats, "pile": state.pile, "to_act": sorted(self.to_act(state)),
                "finished": outcome is not None, "outcome": outcome.as_dict() if outcome else None,
                "secret": state.secrets[seat] if seat is not None and state.secrets else None}

    def legal(self, state: NimState, seat: Seat) -> list[Choice]:
        if seat not in self.to_act(state):
            return []
        # every take listed as a command of its own (at most max_take of them): tests send legal[i] as is
        return [Choice(type="take", body={"n": n}) for n in range(1, min(state.max_take, state.pile) + 1)]

    def legal_commands(self, state: NimState, seat: Seat) -> list[Command]:
        return commands_of(self.legal(state, seat), seat)

    def outcome(self, state: NimState) -> Outcome | None:
        if state.abandoned:
            return abandoned_outcome(state.seats)
        if state.winner is None:
            return None
        return Outcome(tuple(int(s == state.winner) for s in range(state.seats)), (state.winner,))

    def to_act(self, state: NimState) -> frozenset[Seat]:
        return frozenset() if self.outcome(state) is not None or not state.seats else frozenset({state.turn})


NIM = register(Nim())
