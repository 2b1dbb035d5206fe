"""Crash tests with real worker processes: killed at every fault point of a batch (read, decided in memory,
half of the appends sent, appended but not acknowledged), at a random instant, or asked to stop with
SIGTERM. Every command must end applied exactly once."""

from __future__ import annotations

import signal
import subprocess
import time
from collections import Counter

import pytest

from services.faults import EXIT_CODE
from services.keys import WORKERS_GROUP
from services.pipeline.direct import DirectClient
from services.pipeline.redis_backend import RedisBackend
from services.settings import Settings
from tests.pipeline.redis_fixtures import spawn, stop, wait_until

pytestmark = pytest.mark.redis
Procs = list[subprocess.Popen[bytes]]


@pytest.fixture
def settings(redis_settings: Settings) -> Settings:
    return redis_settings.with_(claim_idle_ms=300, claim_every_s=0.2, worker_batch_size=8)


def publish(backend: RedisBackend, matches: int, per_match: int) -> dict[str, str]:
    """Tally matches with ``per_match`` commands each queued; returns command id -> match id."""
    client = DirectClient(backend)
    sent: dict[str, str] = {}
    seats = []
    for _ in range(matches):
        meta = client.create_match("tally", 1)
        seats.append((meta.match_id, client.join(meta.match_id, 0)[1]))
    for n in range(per_match):
        for match_id, credential in seats:
            sent[client.send(match_id, 0, credential, "add", {"n": 1 + n % 9})] = match_id
    return sent


def answered(backend: RedisBackend, sent: dict[str, str]) -> int:
    return sum(backend.store.result(m, c) is not None for c, m in sent.items())


def assert_applied_exactly_once(backend: RedisBackend, sent: dict[str, str]) -> None:
    for cid, match_id in sent.items():
        result = backend.store.result(match_id, cid)
        assert result is not None and result.status == "accepted", (cid, result)
    for match_id in set(sent.values()):
        log = backend.store.read_log(match_id)
        assert [e.version for e in log] == list(range(1, len(log) + 1))
        applied = Counter(e.command_id for e in log if e.command_id)
        assert applied == Counter(c for c, m in sent.items() if m == match_id)
    # Workers acknowledge a batch after handling it, so a worker killed mid-batch leaves answered commands
    # pending until another claims them (and gets the recorded result back): wait for that to finish.
    def drained() -> bool:
        pending = [backend.redis.xpending(backend.settings.keys.commands(p), WORKERS_GROUP)["pending"]
                   for p in range(backend.settings.partitions)]
        return sum(backend.bus.lag().values()) == 0 and sum(pending) == 0

    wait_until(drained, timeout_s=30)


@pytest.mark.parametrize("fault", ["after_read:11", "decided:2", "between_appends:2", "after_append:2"])
def test_a_worker_killed_mid_command_loses_and_repeats_nothing(settings: Settings, procs: Procs, fault: str) -> None:
    backend = RedisBackend(settings)
    sent = publish(backend, matches=3, per_match=10)
    doomed = spawn(settings, fault=fault)
    procs.append(doomed)
    assert doomed.wait(timeout=30) == EXIT_CODE
    batch = settings.worker_batch_size
    assert answered(backend, sent) == {"after_read:11": batch, "decided:2": batch,
                                       "after_append:2": 2 * batch}.get(fault, answered(backend, sent))
    if fault.startswith("between_appends"):  # the first batch, and part of the second
        assert batch < answered(backend, sent) < 2 * batch
    procs.append(spawn(settings))
    wait_until(lambda: answered(backend, sent) == len(sent), timeout_s=30)
    assert_applied_exactly_once(backend, sent)


def test_workers_killed_at_random_instants_lose_and_repeat_nothing(settings: Settings, procs: Procs) -> None:
    backend = RedisBackend(settings)
    sent = publish(backend, matches=6, per_match=40)
    procs.extend([spawn(settings), spawn(settings)])
    wait_until(lambda: answered(backend, sent) >= 20, timeout_s=30, every_s=0.01)
    procs[0].send_signal(signal.SIGKILL)
    procs.append(spawn(settings))
    wait_until(lambda: answered(backend, sent) >= 120, timeout_s=30, every_s=0.01)
    procs[1].send_signal(signal.SIGKILL)
    wait_until(lambda: answered(backend, sent) == len(sent), timeout_s=60)
    assert_applied_exactly_once(backend, sent)


def test_sigterm_finishes_the_batch_in_hand_and_exits_cleanly(settings: Settings, procs: Procs) -> None:
    backend = RedisBackend(settings)
    sent = publish(backend, matches=4, per_match=50)
    worker = spawn(settings)
    procs.append(worker)
    wait_until(lambda: answered(backend, sent) >= 10, timeout_s=30, every_s=0.01)
    started = time.monotonic()
    assert stop(worker) == 0
    assert time.monotonic() - started < 5
    pending = sum(backend.redis.xpending(backend.settings.keys.commands(p), WORKERS_GROUP)["pending"]
                  for p in range(settings.partitions))
    assert pending == 0, "a stopping worker leaves nothing pending"
    procs.append(spawn(settings))
    wait_until(lambda: answered(backend, sent) == len(sent), timeout_s=30)
    assert_applied_exactly_once(backend, sent)
