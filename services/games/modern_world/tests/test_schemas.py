"""Modern World: the wire contract covers every command and event, and the nine phases run in order."""

from __future__ import annotations

import random

from schemas.clock import CLOCK_EVENTS
from services.games.modern_world.decide import HANDLERS as COMMANDS
from services.games.modern_world.evolve import HANDLERS as EVENTS
from services.games.modern_world.tests.helpers import GAME, new_match
from services.games.rng import derive_rng
from tests.games.harness import random_playout, schemas_of

SCHEMAS = schemas_of("modern-world")
ORDER = ["leader", "market", "resource", "investment", "trade", "build", "end"]


def test_every_command_and_event_type_has_a_schema() -> None:
    assert set(SCHEMAS.commands) == set(COMMANDS)
    assert set(SCHEMAS.events) == set(EVENTS) | set(CLOCK_EVENTS)  # (the service's clock events: every game's)
    assert SCHEMAS.options().model_dump() == {"national_identity": False}


def test_legal_commands_validate_against_the_command_schemas() -> None:
    for seats in (2, 5):
        s, log = new_match(seats, seed=seats, national_identity=True)
        pick = random.Random(seats)
        seen = set()
        for _ in range(1500):
            if GAME.outcome(s) is not None:
                break
            seat = pick.choice(sorted(GAME.to_act(s)))
            legal = GAME.legal_commands(s, seat)
            for cmd in legal:
                SCHEMAS.commands[cmd.type].model_validate(cmd.body)
                seen.add(cmd.type)
            events = GAME.decide(s, pick.choice(legal), derive_rng(seats, len(log)))
            for e in events:
                s = GAME.evolve(s, e)
            log.extend(events)
        assert seen >= {"bid", "pass", "buy", "done", "invest", "propose_trade", "convert", "pick_nation"}


def test_the_nine_phases_run_in_order_every_turn() -> None:
    _, log, _ = random_playout(GAME, 3, {}, seed=8)
    turns: list[list[str]] = []
    for e in log:
        if e.type == "TurnStarted":
            turns.append(["production"])
        elif e.type == "TokensProduced":
            turns[-1].append("produced")
        elif e.type == "EventFlipped":
            turns[-1].append("event")
        elif e.type in ("PhaseStarted", "PhaseSkipped") and e.body.get("seat") is None and turns:
            turns[-1].append(e.body["phase"])
    assert len(turns) >= 3
    for phases in turns:
        assert phases[:3] == ["production", "produced", "event"]
        rest = phases[3:]
        assert rest == [p for p in ORDER if p in rest] and rest[:1] == ["leader"]
        assert rest == ORDER
