"""Benchmark: Modern World decide+evolve steps per second over random playouts.

Only ``decide`` and ``evolve`` are timed, in CPU time of this process so that other load on the
machine does not count (legal_commands, the random choice and rng derivation are not timed).
Run: ``python services/games/modern_world/tests/bench.py [matches]`` from the worktree root.

Each step is timed twice: once right after ``legal_commands`` (as ``airship bench reducers`` times it:
the big concrete list a trade phase builds leaves the CPU caches cold) and once more on the same state
and command (warm: the cost of the reducers themselves).
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from services.games.modern_world import GAME
from services.games.rng import derive_rng
from tests.games.harness import start


def bench(matches: int) -> None:
    steps = 0
    cold = warm = 0.0
    wall = time.process_time()
    for k in range(matches):
        seats = 2 + k % 5
        state, log = start(GAME, seats, {"national_identity": k % 2 == 1}, k)
        pick = random.Random(k)
        n = len(log)
        while GAME.outcome(state) is None:
            seat = pick.choice(sorted(GAME.to_act(state)))
            command = pick.choice(GAME.legal_commands(state, seat))
            timings = []
            for _ in range(2):
                rng = derive_rng(k, n)
                t0 = time.process_time()
                events = GAME.decide(state, command, rng)
                after = state
                for event in events:
                    after = GAME.evolve(after, event)
                timings.append(time.process_time() - t0)
            cold, warm = cold + timings[0], warm + timings[1]
            state = after
            n += len(events)
            steps += 1
    wall = time.process_time() - wall
    print(f"{matches} matches, {steps} steps ({steps / matches:.0f} per match)")
    print(f"decide+evolve: {steps / cold:,.0f} steps/s ({cold / steps * 1e6:.1f} us/step) after legal_commands; "
          f"{steps / warm:,.0f} steps/s ({warm / steps * 1e6:.1f} us/step) warm")
    print(f"whole loop incl. legal_commands: {steps / wall:,.0f} steps/s, {matches / wall:.1f} matches/s")


if __name__ == "__main__":
    bench(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
