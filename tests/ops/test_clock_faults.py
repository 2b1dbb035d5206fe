"""Turn clocks under faults (#29), with the shipped Redis files (infra/redis/redis.conf + users.acl) and real
``airship worker`` processes logged in as the worker user: clocked matches whose seats never move, so every
decision is a timeout (the heuristic bot stands in) until a seat's third in a row forfeits it. Two and four
workers sweep the deadlines at once; one worker is killed with SIGKILL while the clocks run, and (with two)
Redis too. Afterwards every match is over by forfeit, each deadline was applied once (one command id per
timeout, the timeouts in a row counting 1, 2, 3 per seat), every log verifies (each command decided again at its
recorded time), and no timeout came before its deadline nor later than :data:`LATE_BOUND_MS` after it."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from schemas.clock import FORFEITED, TIMED_OUT, TIMEOUT_COMMAND
from services.pipeline.direct import DirectClient
from services.pipeline.redis_backend import RedisBackend
from services.settings import Settings
from tests.ops.test_redis_durability import KP, RedisServer
from tests.pipeline.redis_fixtures import spawn, stop
from tests.pipeline.test_clock_race import verified_log

CLOCK = {"kind": "move", "seconds": 0.4, "timeouts": 3}
MATCHES = 10
LATE_BOUND_MS = 6000
"""How late a timeout may be decided: the sweep's period (0.2 s) and read (0.25 s), plus, for a match whose worker
was killed, a lease's time to live (1.5 s) and a renewal, plus Redis coming back and the workers reconnecting."""


@pytest.fixture
def shipped(tmp_path: Path) -> Iterator[RedisServer]:
    """redis-server from the shipped files, in a directory of its own."""
    started = RedisServer(tmp_path).start()
    yield started
    started.stop()


def settings(server: RedisServer, user: str) -> Settings:
    return Settings(redis_url=server.url(user), key_prefix=KP.prefix, partitions=KP.partitions, block_ms=50,
                    claim_every_s=0.2)


def finished(backend: RedisBackend, ids: list[str]) -> int:
    return sum(1 for m in ids if (meta := backend.store.meta(m)) is not None and meta.status == "finished")


@pytest.mark.parametrize("workers", [2, 4])
def test_timeouts_are_applied_once_through_kills(shipped: RedisServer, workers: int) -> None:
    server = shipped
    off = {"AIRSHIP_HEALTH_PORT": "0", "AIRSHIP_METRICS_PORT": "0"}
    procs = [spawn(settings(server, "worker"), "worker", **off) for _ in range(workers)]
    backend = RedisBackend(settings(server, "admin"))
    try:
        client = DirectClient(backend, poll_ms=50)
        ids = []
        for n in range(MATCHES):
            meta = client.create_match("moderne-zeiten", 3, seed=100 + n, clock=CLOCK)
            for seat in range(3):
                client.join(meta.match_id, seat)
            ids.append(meta.match_id)
        deadline = time.monotonic() + 15
        while finished(backend, ids) < MATCHES // 4:  # some way in: kill a worker (and Redis) while clocks run
            assert time.monotonic() < deadline, "no clocked match ended"
            time.sleep(0.1)
        procs[0].kill()
        procs[0].wait(timeout=10)
        procs[0] = spawn(settings(server, "worker"), "worker", **off)
        if workers == 2:
            time.sleep(0.5)
            server.kill()
            server.start()
        deadline = time.monotonic() + 60
        while finished(backend, ids) < MATCHES:
            assert time.monotonic() < deadline, f"only {finished(backend, ids)} of {MATCHES} clocked matches ended"
            time.sleep(0.2)
        for match_id in ids:
            check_match(backend, match_id)
    finally:
        for proc in procs:
            stop(proc)
        backend.close()


def check_match(backend: RedisBackend, match_id: str) -> None:
    log = verified_log(backend, match_id)  # no gap, no timeout applied twice, verified
    commands = [e for e in log if e.command is not None]
    assert all(e.command["type"] == TIMEOUT_COMMAND for e in commands)  # type: ignore[index]
    in_row: dict[int, list[int]] = {}
    for event in log:
        if event.type == TIMED_OUT:
            in_row.setdefault(event.body["seat"], []).append(event.body["in_row"])
        if event.type in (TIMED_OUT, FORFEITED):
            late = event.body["at_ms"] - event.body["deadline_ms"]
            assert 0 <= late < LATE_BOUND_MS, (match_id, event.version, late)
    for seat, counts in in_row.items():
        assert counts == list(range(1, len(counts) + 1)) and len(counts) <= 2, (match_id, seat, counts)
    forfeits = [e for e in log if e.type == FORFEITED]
    assert len(forfeits) == 1 and log[-1].type == FORFEITED and forfeits[0].body["reason"] == "timeouts"
    assert in_row.get(forfeits[0].body["seat"]) == [1, 2]
