"""Redelivery and the dead-letter stream on Redis, with real worker processes: a command whose decide
raises, and a poison command that kills the worker process every time it is tried."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from schemas.codec import unpack
from schemas.envelopes import CommandEnvelope
from services.pipeline.direct import DirectClient
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
    client = DirectClient(backend)
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
    client = DirectClient(backend)
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


# -- the operator commands: airship parked / dead-letters --------------------------------------------

def _airship(capsys: pytest.CaptureFixture[str], settings: Settings, *argv: str) -> tuple[int, list[dict[str, Any]]]:
    from services.cli import main

    capsys.readouterr()  # what the in-process worker and projector logged before
    code = main([*argv, "--redis", settings.redis_url, "--prefix", settings.key_prefix,
                 "--partitions", str(settings.partitions)])
    return code, [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_operators_list_requeue_and_drop_dead_letters_and_retry_parked_matches(
    redis_backend: RedisBackend, capsys: pytest.CaptureFixture[str]
) -> None:
    from services.pipeline.lobby import create_match, join
    from services.pipeline.projector import Projector
    from services.pipeline.worker import Worker, WorkerSettings
    from tests.pipeline.contract import command
    from tests.pipeline.poison import VIEW_ERROR

    settings, keys, r = redis_backend.settings, redis_backend.settings.keys, redis_backend.redis
    for match_id in ("bad", "good"):
        create_match(redis_backend.store, "poison", 1, seed=1, match_id=match_id)
        join(redis_backend.store, match_id, 0)
    r.xadd(keys.commands(keys.partition("good")), {b"junk": b"1"})  # no payload: can only be dropped
    redis_backend.bus.publish("ghost", command("ghost", 0, cid="lost"))  # its match does not exist (yet)
    redis_backend.bus.publish("bad", command("bad", 0, cid="b1", type="break-view"))
    worker = Worker(redis_backend.bus, redis_backend.store, "w",
                    WorkerSettings(block_ms=10, claim_idle_ms=0, claim_every_s=0, max_deliveries=2))
    projector = Projector(redis_backend.store, redis_backend.views, "p", block_ms=10, claim_idle_ms=0,
                          claim_every_s=0, max_deliveries=2)
    for _ in range(5):
        worker.run_once(block_ms=10)
        projector.run_once(block_ms=10, claim=True)

    code, letters = _airship(capsys, settings, "dead-letters", "list")
    assert code == 0 and len(letters) == 2
    by_payload = {(letter["payload"] or {}).get("command_id"): letter for letter in letters}
    assert set(by_payload) == {None, "lost"} and "'e'" in by_payload[None]["error"]
    code, parked = _airship(capsys, settings, "parked", "list")
    assert code == 0 and [p["match_id"] for p in parked] == ["bad"] and VIEW_ERROR in parked[0]["error"]

    code, out = _airship(capsys, settings, "dead-letters", "requeue", by_payload[None]["id"])
    assert code == 1 and out[0]["requeued"] is False
    code, out = _airship(capsys, settings, "dead-letters", "drop", by_payload[None]["id"])
    assert code == 0 and out == [{"id": by_payload[None]["id"], "dropped": True}]
    create_match(redis_backend.store, "poison", 1, seed=1, match_id="ghost")  # the lost command's match appears
    join(redis_backend.store, "ghost", 0)
    code, out = _airship(capsys, settings, "dead-letters", "requeue", "--all")
    assert code == 0 and [o["requeued"] for o in out] == [True]
    assert _airship(capsys, settings, "dead-letters", "list") == (0, [])
    while worker.run_once(block_ms=10):
        pass
    result = redis_backend.store.result("ghost", "lost")
    assert result is not None and result.status == "rejected" and result.code == "bad_command"  # decided at last

    redis_backend.bus.publish("bad", command("bad", 0, cid="b2", type="fix-view"))
    while worker.run_once(block_ms=10):
        pass
    code, out = _airship(capsys, settings, "parked", "retry", "bad", "nope")
    assert code == 1 and out == [{"match_id": "bad", "retried": True},
                                 {"match_id": "nope", "retried": False, "reason": "not parked"}]
    for _ in range(3):
        projector.run_once(block_ms=10, claim=True)
    view = redis_backend.views.get_view("bad", "public")
    assert view is not None and view.version == redis_backend.store.version("bad") == 3
    assert _airship(capsys, settings, "parked", "list") == (0, [])
