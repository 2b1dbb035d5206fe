"""``airship bench reducers``: steps per second of each game in random playouts, two ways.

- decide+evolve: only ``decide`` and ``evolve`` are timed (what a worker spends on a command's rules);
- whole playout steps: the whole step, choosing the seat to act and the command (``to_act``,
  ``legal_commands``, the random picks) included, as a bot or a random playout (and the pipeline bench's
  pre-played matches) spends it.

Times are CPU seconds of this thread (per core; other load on the machine does not skew them). One JSON
object per game is printed with ``--json``.
"""

from __future__ import annotations

import json
import random
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any

from services.games import builtin_games, default_seats, get_game
from services.games.base import Game
from services.games.rng import derive_rng


@dataclass
class ReducerBench:
    game: str
    seats: int
    matches: int
    steps: int
    events: int
    seconds: float  # in decide+evolve
    playout_seconds: float  # in whole steps (setup excluded)

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds if self.seconds else 0.0

    @property
    def playout_steps_per_s(self) -> float:
        return self.steps / self.playout_seconds if self.playout_seconds else 0.0


def playout_timed(game: Game[Any], seats: int, seed: int) -> tuple[int, int, float, float]:
    """One random match; returns (commands, events, seconds spent in decide+evolve, seconds spent in whole
    steps: the outcome check, ``to_act``, ``legal_commands``, the picks, ``decide`` and ``evolve``)."""
    pick = random.Random(seed)
    state = game.initial()
    spent = 0.0
    t0 = time.thread_time()
    events = game.setup({}, seats, derive_rng(seed, 0))
    for event in events:
        state = game.evolve(state, event)
    spent += time.thread_time() - t0
    version, steps = len(events), 0
    whole = 0.0
    step_started = time.thread_time()
    while game.outcome(state) is None:
        seat = pick.choice(sorted(game.to_act(state)))
        command = pick.choice(game.legal_commands(state, seat))
        t0 = time.thread_time()
        new = game.decide(state, command, derive_rng(seed, version))
        for event in new:
            state = game.evolve(state, event)
        t1 = time.thread_time()
        spent += t1 - t0
        version += len(new)
        steps += 1
        whole += t1 - step_started
        step_started = t1
    return steps, version, spent, whole


def bench_game(name: str, seats: int, matches: int, seed: int = 1) -> ReducerBench:
    game = get_game(name)
    steps = events = 0
    seconds = whole = 0.0
    for i in range(matches):
        s, e, t, w = playout_timed(game, seats, seed + i)
        steps, events, seconds, whole = steps + s, events + e, seconds + t, whole + w
    return ReducerBench(name, seats, matches, steps, events, seconds, whole)


def run(games: list[str] | None, matches: int, as_json: bool) -> int:
    for name in games or builtin_games():
        game = get_game(name)
        seats = default_seats(game)
        result = bench_game(name, seats, matches)
        if as_json:
            print(json.dumps({"bench": "reducers", **asdict(result), "steps_per_s": round(result.steps_per_s),
                              "playout_steps_per_s": round(result.playout_steps_per_s)}))
        else:
            print(f"{name:16} {seats} seats  {result.matches} matches  {result.steps:>8} steps  "
                  f"{result.steps_per_s:>10,.0f} decide+evolve steps/s  "
                  f"{result.playout_steps_per_s:>10,.0f} whole playout steps/s", file=sys.stdout)
    return 0
