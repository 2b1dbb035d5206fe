"""Decide+evolve speed of Moderne Zeiten in random playouts (legal_commands excluded from the timing).

Run from the repository root: python -m services.games.moderne_zeiten.tests.bench [matches]
"""

from __future__ import annotations

import random
import sys
import time

from services.games.moderne_zeiten import GAME
from services.games.rng import derive_rng


def main(matches: int = 300) -> None:
    steps = 0
    spent = 0.0
    for seed in range(matches):
        pick = random.Random(seed)
        seats = 3 + seed % 3
        options = {"forced_move": bool(seed & 1), "move_needs_play": bool(seed & 2),
                   "crash_after_move": bool(seed & 4)}
        state = GAME.initial()
        for event in GAME.setup(options, seats, derive_rng(seed, 0)):
            state = GAME.evolve(state, event)
        version = 0
        while GAME.outcome(state) is None:
            seat = min(GAME.to_act(state))
            command = pick.choice(GAME.legal_commands(state, seat))
            rng = random.Random(seed * 100_003 + version)
            t0 = time.perf_counter()
            events = GAME.decide(state, command, rng)
            for event in events:
                state = GAME.evolve(state, event)
            spent += time.perf_counter() - t0
            version += len(events)
            steps += 1
    print(f"{steps} steps in {spent:.2f}s: {steps / spent:,.0f} decide+evolve steps/s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
