"""``airship bench replay``: events per second rebuilding match states from exported logs.

Random playouts of every built-in game are written as export files (``airship export`` format, JSON lines
with the match header) to a temporary directory. Timed separately: reading the files back (parsing and
validating every envelope), and the replay itself — folding ``evolve`` over each match's events from
``initial()`` (what ``airship replay`` and a cold worker or projector do once the log is in memory).
Times are CPU seconds of this thread, so the figures are per core and not skewed by other load.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from schemas.envelopes import MatchMeta
from services.games import builtin_games, default_seats, get_game
from services.games.base import replay
from services.games.rng import derive_rng
from services.pipeline.states import to_envelope, to_event
from services.replay.files import MatchLog, read_match, write_match


@dataclass
class ReplayBench:
    game: str
    matches: int
    events: int
    read_seconds: float
    replay_seconds: float

    @property
    def events_per_s(self) -> float:
        return self.events / self.replay_seconds if self.replay_seconds else 0.0

    @property
    def read_events_per_s(self) -> float:
        return self.events / self.read_seconds if self.read_seconds else 0.0


def playout_log(name: str, seats: int, seed: int) -> MatchLog:
    """A finished random match as an export holds it."""
    game = get_game(name)
    pick = random.Random(seed)
    events = game.setup({}, seats, derive_rng(seed, 0))
    state = replay(game, events)
    while game.outcome(state) is None:
        seat = pick.choice(sorted(game.to_act(state)))
        new = game.decide(state, pick.choice(game.legal_commands(state, seat)), derive_rng(seed, len(events)))
        for event in new:
            state = game.evolve(state, event)
        events += new
    match_id = f"bench-{name}-{seed}"
    meta = MatchMeta(match_id=match_id, game=name, seats=seats, seed=seed, status="finished")
    return MatchLog(meta, [to_envelope(match_id, i + 1, e) for i, e in enumerate(events)])


def bench_game(name: str, matches: int, directory: Path, seed: int = 1) -> ReplayBench:
    seats = default_seats(get_game(name))
    paths = []
    for i in range(matches):
        path = directory / f"{name}-{i}.jsonl"
        write_match(path, playout_log(name, seats, seed + i))
        paths.append(path)
    started = time.thread_time()
    logs = [read_match(path) for path in paths]
    read_s = time.thread_time() - started
    game = get_game(name)
    started = time.thread_time()
    for log in logs:
        replay(game, [to_event(e) for e in log.events])
    replay_s = time.thread_time() - started
    return ReplayBench(name, matches, sum(len(log.events) for log in logs), read_s, replay_s)


def run(games: list[str] | None, matches: int, as_json: bool) -> int:
    with tempfile.TemporaryDirectory(prefix="airship-bench-replay-") as tmp:
        for name in games or builtin_games():
            r = bench_game(name, matches, Path(tmp))
            if as_json:
                print(json.dumps({"bench": "replay", **asdict(r), "events_per_s": round(r.events_per_s),
                                  "read_events_per_s": round(r.read_events_per_s)}))
            else:
                print(f"{name:16} {r.matches} matches  {r.events:>8} events  replay {r.events_per_s:>10,.0f} "
                      f"events/s  (reading the files: {r.read_events_per_s:,.0f} events/s)", file=sys.stdout)
    return 0
