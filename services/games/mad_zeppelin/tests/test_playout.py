"""Random legal play: 2,000+ complete matches over 2-6 players and both modes.

Gold (Safe + players = 30), every Cargo/Journey card and all 14 Traitors are checked after every
single event; the harness checks that legal commands are accepted, decide never mutates, replay
equality and the schemas.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from typing import Any

import pytest

from services.games.base import Command, Event, Outcome
from services.games.mad_zeppelin import GAME
from services.games.mad_zeppelin.state import State
from services.games.mad_zeppelin.tests.helpers import check_conservation
from tests.games.harness import random_playout

MATCHES = 2_000
MODES = ("run", "long_haul")


class Checked:
    """GAME with the conservation check run after every event the harness applies."""

    name, title, Options = GAME.name, GAME.title, GAME.Options
    min_seats, max_seats = GAME.min_seats, GAME.max_seats

    def initial(self) -> State:
        return GAME.initial()

    def setup(self, options: Mapping[str, Any], seats: int, rng: random.Random) -> list[Event]:
        return GAME.setup(options, seats, rng)

    def decide(self, state: State, command: Command, rng: random.Random) -> list[Event]:
        return GAME.decide(state, command, rng)

    def evolve(self, state: State, event: Event) -> State:
        state = GAME.evolve(state, event)
        check_conservation(state)
        return state

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return GAME.view(state, seat)

    def legal_commands(self, state: State, seat: int) -> list[Command]:
        return GAME.legal_commands(state, seat)

    def outcome(self, state: State) -> Outcome | None:
        return GAME.outcome(state)

    def to_act(self, state: State) -> frozenset[int]:
        return GAME.to_act(state)


def test_random_playouts_conserve_gold_and_cards_and_finish() -> None:
    game = Checked()
    reasons: Counter[str] = Counter()
    commands: Counter[str] = Counter()
    for match in range(MATCHES):
        seats, mode = 2 + match % 5, MODES[(match // 5) % 2]
        state, log, outcome = random_playout(game, seats, {"mode": mode}, seed=match, schema_every=0)
        assert state.phase == "over" and GAME.to_act(state) == frozenset()
        assert len(outcome.scores) == seats
        reasons[outcome.detail["reason"]] += 1
        if outcome.winners:
            best = max(outcome.scores)
            assert best >= state.target and all(outcome.scores[w] == best for w in outcome.winners)
        else:
            assert outcome.detail["reason"] == "journeys" and max(outcome.scores) < state.target
        commands.update(e.type for e in log)
    assert reasons["target"] and reasons["journeys"], reasons
    for kind in ("CargoStolen", "GoldStolen", "StealMissed", "CargoGiven", "GoldGiven", "HoldRearranged",
                 "DieRerolled", "AlcoholPlaced", "SequenceSkipped", "DieColourChosen", "NothingGiven"):
        assert commands[kind], f"random play never produced {kind}"


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("mode", MODES)
def test_every_legal_command_is_accepted_and_schemas_hold(seats: int, mode: str) -> None:
    for seed in range(3):
        random_playout(GAME, seats, {"mode": mode}, seed=10_000 + seed, check_every_legal=True,
                       schema_every=5)
