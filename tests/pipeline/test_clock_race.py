"""Turn clocks (#29) with seats that play, through two real workers and a projector: a match of every game on a
0.3 s move clock, its seats played by the SDK's runner with bots that mostly answer in time, sometimes just at
their deadline and sometimes past it. Moves and timeouts race at the store, and exactly one of them wins each
deadline: versions without gaps, no command id twice, every timeout decided for the deadline the seat had at the
version before it (never for a seat that had already acted), the SDK's move that lost its race refused
(``conflict``: a seat alone to act pins its move to its view) rather than applied to a later decision, and every
log verifies."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from typing import Any

from schemas.clock import FORFEITED, TIMED_OUT, TIMEOUT_COMMAND, timeout_id
from schemas.envelopes import CommandResult, EventEnvelope, ViewRecord
from services.bots.plugins import make_bot
from services.bots.sdk import SeatRunner, racing_a_clock
from services.games import builtin_games, default_seats
from services.games.clock import match_game
from services.pipeline.direct import DirectClient
from services.pipeline.redis_backend import RedisBackend
from services.pipeline.states import to_event
from services.replay.transfer import load_match
from services.replay.verify import verify
from services.settings import Settings
from tests.pipeline.redis_fixtures import spawn, stop

CLOCK = {"kind": "move", "seconds": 0.3, "timeouts": 20}
RUN_S = 12.0


class Stopped(Exception):
    """The test is over: the seat stops."""


class Sleepy:
    """A random bot that thinks 0-0.15 s (70%), about its deadline (0.25-0.35 s: 20%) or past it (0.5 s: 10%)."""

    def __init__(self, game: str, seat: int, seed: int, stopping: threading.Event) -> None:
        self.bot = make_bot("random", game, seed)
        self.rng = random.Random(seed)
        self.stopping = stopping

    def choose(self, view: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
        if self.stopping.is_set():
            raise Stopped
        draw = self.rng.random()
        time.sleep(self.rng.uniform(0, 0.15) if draw < 0.7 else self.rng.uniform(0.25, 0.35) if draw < 0.9 else 0.5)
        return dict(self.bot.choose(view, legal))


class NotingRunner(SeatRunner):
    """Notes each answer's result and whether it was pinned to its view (the seat alone to act on a clock)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.answers: list[tuple[bool, CommandResult]] = []

    def answer(self, record: ViewRecord) -> CommandResult:
        result = super().answer(record)
        self.answers.append((racing_a_clock(record, self.seat), result))
        return result


def test_moves_and_timeouts_race_and_exactly_one_wins(redis_settings: Settings) -> None:
    settings = redis_settings
    procs = [spawn(settings, "worker"), spawn(settings, "worker"), spawn(settings, "projector")]
    backend = RedisBackend(settings)
    stopping = threading.Event()
    runners: list[NotingRunner] = []
    failures: list[str] = []
    try:
        client = DirectClient(backend, poll_ms=20)
        matches = {}
        for n, game in enumerate(builtin_games()):
            seats = default_seats(match_game(game))
            meta = client.create_match(game, seats, seed=50 + n, clock=CLOCK)
            credentials = [client.join(meta.match_id, seat)[1] for seat in range(seats)]
            matches[meta.match_id] = game
            for seat, credential in enumerate(credentials):
                bot = Sleepy(game, seat, 1000 * n + seat, stopping)
                runners.append(NotingRunner(DirectClient(backend, poll_ms=20), meta.match_id, seat, credential, bot,
                                          timeout_s=30))

        def run(runner: NotingRunner) -> None:
            try:
                runner.run()
            except Stopped:
                pass
            except Exception as e:  # a seat that gave up fails the test
                failures.append(f"{runner.match_id} seat {runner.seat}: {e!r}")

        threads = [threading.Thread(target=run, args=(r,), daemon=True) for r in runners]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + RUN_S
        while time.monotonic() < deadline and any(t.is_alive() for t in threads):
            time.sleep(0.2)
        stopping.set()
        for thread in threads:
            thread.join(10)
        for proc in procs:
            stop(proc)
        assert not failures, failures
        timeouts = sum(check_match(backend, match_id, game) for match_id, game in matches.items())
        pinned = [res for r in runners for was_pinned, res in r.answers if was_pinned]
        lost = [res for res in pinned if res.status == "rejected"]
        assert all(res.code == "conflict" for res in lost), Counter(res.code for res in lost)
        print(f"\n{timeouts} timeouts; {len(pinned)} moves pinned to their view, {len(lost)} of them lost their "
              f"race and were refused; {sum(r.stats.decisions for r in runners)} decisions")
        assert timeouts >= 3 and lost, "the bots never raced their deadlines"
    finally:
        stopping.set()
        for proc in procs:
            stop(proc)
        backend.close()


def verified_log(backend: RedisBackend, match_id: str) -> list[EventEnvelope]:
    """The match's log, checked to hold together: versions without a gap, no command id twice, and every command
    decided again at its recorded time gives the same events (``verify``, with the seed)."""
    match = load_match(backend.store, match_id)
    log = match.events
    assert [e.version for e in log] == list(range(1, len(log) + 1)), match_id
    commands = [e for e in log if e.command is not None]
    ids = Counter(e.command_id for e in commands)
    assert max(ids.values()) == 1, f"a command applied twice in {match_id}: {ids.most_common(1)}"
    report = verify(match)
    assert report.ok and report.commands_decided == len(commands), report.summary()
    return log


def check_match(backend: RedisBackend, match_id: str, game: str) -> int:
    """The match's log holds together; every timeout was for the deadline its seat had; returns its timeouts."""
    log = verified_log(backend, match_id)
    rules = match_game(game)
    state = rules.initial()
    timeouts = 0
    for envelope in log:
        if envelope.type in (TIMED_OUT, FORFEITED):  # the seat was on the clock with that deadline, one version before
            timeouts += 1
            seat = envelope.body["seat"]
            assert envelope.command is not None and envelope.command["type"] == TIMEOUT_COMMAND
            assert envelope.command_id == timeout_id(envelope.version - 1, seat), (match_id, envelope.version)
            assert state.clock is not None and state.clock.deadline(seat) == envelope.body["deadline_ms"]
            assert envelope.body["at_ms"] >= envelope.body["deadline_ms"]
        state = rules.evolve(state, to_event(envelope))
    return timeouts
