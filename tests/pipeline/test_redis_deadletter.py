"""Redelivery and the dead-letter stream on Redis, with real worker processes: a command whose decide
raises, and a poison command that kills the worker process every time it is tried."""

from __future__ import annotations

import subprocess

import pytest

from schemas.codec import unpack
from schemas.envelopes import CommandEnvelope
from services.pipeline.client import Client
from services.pipeline.redis_backend import RedisBackend
from services.settings import Settings
from tests.pipeline.redis_fixtures import spawn, stop, wait_until

pytestmark = pytest.mark.redis
Procs = list[subprocess.Popen[bytes]]


@pytest.fixture
def settings(redis_settings: Settings) -> Settings:
    return redis_settings.with_(claim_idle_ms=200, claim_every_s=0.1, max_deliveries=2)


def dead_letters(backend: RedisBackend) -> list[tuple[CommandEnvelope, str]]:
    return [(unpack(CommandEnvelope, data), error) for p in range(backend.settings.partitions)
            for data, error in backend.bus.dead_letters(p)]


def test_a_command_whose_decide_raises_is_retried_then_dead_lettered(settings: Settings, procs: Procs) -> None:
    backend = RedisBackend(settings)
    client = Client(backend)
    meta = client.create_match("nim", 2, seed=5)
    creds = [client.join(meta.match_id, s)[1] for s in range(2)]
    bad = client.send(meta.match_id, 0, creds[0], "explode", {})
    good = client.send(meta.match_id, 0, creds[0], "take", {"n": 1})
    procs.append(spawn(settings))
    rejected = client.wait_result(meta.match_id, bad, timeout_s=30)
    assert rejected.status == "rejected" and rejected.code == "failed" and rejected.reason
    assert client.wait_result(meta.match_id, good, timeout_s=30).status == "accepted"
    ((envelope, error),) = dead_letters(backend)
    assert envelope.command_id == bad and "dead-letter" in error
    assert stop(procs[0]) == 0


def test_a_poison_command_that_kills_workers_reaches_the_dead_letters_alone(settings: Settings, procs: Procs) -> None:
    backend = RedisBackend(settings)
    client = Client(backend)
    meta = client.create_match("poison", 1)
    cred = client.join(meta.match_id, 0)[1]
    poison = client.send(meta.match_id, 0, cred, "die", {})
    innocent = [client.send(meta.match_id, 0, cred, "add", {"n": 2}) for _ in range(3)]
    deaths = 0
    while backend.store.result(meta.match_id, poison) is None:
        assert deaths <= settings.max_deliveries, "the poison was never given up"
        worker = spawn(settings)
        procs.append(worker)
        wait_until(lambda w=worker: w.poll() is not None or backend.store.result(meta.match_id, poison) is not None)
        if worker.poll() is None:
            break  # alive: it gave the poison up
        assert worker.returncode == 3, "the poison kills the worker"
        deaths += 1
    wait_until(lambda: all(backend.store.result(meta.match_id, c) is not None for c in innocent), timeout_s=30)
    assert deaths == settings.max_deliveries
    result = backend.store.result(meta.match_id, poison)
    assert result is not None and result.status == "rejected" and result.code == "failed"
    for cid in innocent:
        found = backend.store.result(meta.match_id, cid)
        assert found is not None and found.status == "accepted", "batch-mates of the poison are not dead-lettered"
    assert [e.command_id for e, _ in dead_letters(backend)] == [poison]
    assert backend.store.version(meta.match_id) == 1 + len(innocent)
