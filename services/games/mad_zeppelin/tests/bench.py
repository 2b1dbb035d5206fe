"""Decide+evolve steps per second of Mad Zeppelin under random legal play (legal_commands excluded).

Run: /work/venv/bin/python services/games/mad_zeppelin/tests/bench.py [matches]
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from services.games.base import Command, Event
from services.games.mad_zeppelin import GAME
from services.games.mad_zeppelin.state import State
from services.games.rng import derive_rng


def record(matches: int) -> list[tuple[State, Command, int]]:
    """Play random matches; keep (state, command, rng seed) of every step to replay in the timed loop."""
    steps: list[tuple[State, Command, int]] = []
    for m in range(matches):
        seats, mode = 2 + m % 5, ("run", "long_haul")[m % 2]
        pick = random.Random(m)
        state = GAME.initial()
        for event in GAME.setup({"mode": mode}, seats, derive_rng(m, 0)):
            state = GAME.evolve(state, event)
        n = 0
        while GAME.outcome(state) is None:
            seat = min(GAME.to_act(state))
            command = pick.choice(GAME.legal_commands(state, seat))
            steps.append((state, command, m * 100_000 + n))
            for event in GAME.decide(state, command, random.Random(m * 100_000 + n)):
                state = GAME.evolve(state, event)
            n += 1
    return steps


def timed(steps: list[tuple[State, Command, int]]) -> tuple[float, float, int]:
    """One pass over the recorded steps: (wall seconds, CPU seconds, events)."""
    rngs = [random.Random(seed) for _, _, seed in steps]
    events_total = 0
    wall, cpu = time.perf_counter(), time.process_time()
    for (state, command, _), rng in zip(steps, rngs, strict=True):
        events: list[Event] = GAME.decide(state, command, rng)
        for event in events:
            state = GAME.evolve(state, event)
        events_total += len(events)
    return time.perf_counter() - wall, time.process_time() - cpu, events_total


def main() -> None:
    matches = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    steps = record(matches)
    runs = [timed(steps) for _ in range(3)]
    wall = min(r[0] for r in runs)
    cpu = min(r[1] for r in runs)
    events = runs[0][2]
    print(f"{len(steps)} steps ({events} events) of {matches} matches, best of 3: "
          f"{len(steps) / wall:,.0f} decide+evolve steps/s wall, {len(steps) / cpu:,.0f} per CPU second "
          f"({events / cpu:,.0f} events per CPU second)")


if __name__ == "__main__":
    main()
