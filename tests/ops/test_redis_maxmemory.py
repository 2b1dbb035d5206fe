"""Redis at its memory limit, with the shipped files (redis.conf: ``maxmemory`` with ``noeviction``) and a real
``airship worker`` and ``airship projector`` logged in as their users; the limit is lowered with CONFIG SET
as admin.

At the limit Redis refuses, with ``-OOM``, every command that may grow memory. Each Lua script starts with
``#!lua`` (no flags): Redis then refuses the whole script before it runs. Without the line Redis checks only
at the script's first memory-growing write (so nothing is half-written either, but a script whose first write
is an EXPIRE or ZREM would run on past the limit). Reads, XREADGROUP, XACK and trims go on. Nothing of a
match changes while at the limit, the processes keep running (a command in hand stays pending), and once
memory is freed everything proceeds: the pending command is applied, exactly once.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from services.pipeline.direct import DirectClient
from services.pipeline.redis_backend import LUA_DIR, RedisBackend
from services.settings import Settings
from tests.ops.test_redis_durability import KP, RedisServer, dump, pytestmark
from tests.pipeline import nim  # noqa: F401  (registers the test game in this process)
from tests.pipeline.redis_fixtures import spawn, stop, wait_until

__all__ = ["pytestmark"]  # skipped without redis-server

OOM = "command not allowed when used memory > 'maxmemory'."  # redis-py drops the -OOM code


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RedisServer]:
    started = RedisServer(tmp_path).start()
    yield started
    started.stop()


def match_keys(admin: redis.Redis, match_id: str) -> dict[str, Any]:
    return {k: v for k, v in dump(admin).items() if f":match:{match_id}:" in k}


def oom_errors(admin: redis.Redis) -> int:
    stats = admin.info("errorstats")
    return int(stats.get("errorstat_OOM", {}).get("count", 0))


def test_the_shipped_limit_never_evicts(server: RedisServer) -> None:
    with server.admin() as admin:
        config = admin.config_get("maxmemory*")
    assert config["maxmemory-policy"] == "noeviction"
    assert int(config["maxmemory"]) == 768 * 1024 * 1024


ONLY_REMOVES = {"purge.lua"}  # runs at maxmemory too (allow-oom): removing is what frees memory there


def test_every_script_is_refused_whole_before_it_runs() -> None:
    for script in sorted(LUA_DIR.glob("*.lua")):
        first = script.read_text().splitlines()[0]
        assert first.startswith("#!lua") and "no-writes" not in first, script.name
        assert ("allow-oom" in first) == (script.name in ONLY_REMOVES), script.name
    purge = (LUA_DIR / "purge.lua").read_text()
    writes = {"SET", "HSET", "HSETNX", "XADD", "ZADD", "HINCRBY", "INCR", "SETNX", "RPUSH", "LPUSH", "SADD"}
    assert not {w for w in writes if f"'{w}'" in purge}, "a script that may run at maxmemory must only remove"


def test_at_the_limit_writes_are_refused_cleanly_and_everything_proceeds_afterwards(server: RedisServer) -> None:
    def settings(user: str) -> Settings:
        return Settings(redis_url=server.url(user), key_prefix=KP.prefix, partitions=KP.partitions, block_ms=50,
                        claim_every_s=0.2, claim_idle_ms=1000, max_deliveries=50)

    off = {"AIRSHIP_HEALTH_PORT": "0", "AIRSHIP_METRICS_PORT": "0"}
    worker = spawn(settings("worker"), "worker", **off)
    projector = spawn(settings("projector"), "projector", **off)
    trusted = RedisBackend(settings("admin"))
    as_worker = RedisBackend(settings("worker"))
    raw = server.admin(decode=False)
    admin = server.admin()
    limit = str(admin.config_get("maxmemory")["maxmemory"])
    try:
        client = DirectClient(trusted, poll_ms=50)
        meta = client.create_match("nim", 2, seed=5)
        creds = dict(client.join(meta.match_id, seat) for seat in range(2))
        public = client.wait_view(meta.match_id, "public", client.match(meta.match_id).version, 30)
        seat = min(public.view["to_act"])
        first = client.call(meta.match_id, seat, creds[seat], "take", {"n": 1}, timeout_s=30)
        assert first.status == "accepted", first
        seat = min(client.wait_view(meta.match_id, "public", first.version, 30).view["to_act"])

        # a command the worker holds when the limit is hit: sent while it is paused
        worker.send_signal(signal.SIGSTOP)
        pending = client.send(meta.match_id, seat, creds[seat], "take", {"n": 1})
        before = match_keys(raw, meta.match_id)
        errors = oom_errors(admin)
        admin.config_set("maxmemory", 1)
        worker.send_signal(signal.SIGCONT)

        # the worker reads the command, its append script is refused whole, and the command stays pending
        wait_until(lambda: oom_errors(admin) > errors, timeout_s=20)
        with pytest.raises(redis.exceptions.OutOfMemoryError) as refused:
            as_worker.store.append(meta.match_id, first.version, [], first)  # the real append.lua, refused
        assert str(refused.value) == OOM, "refused before it ran, not at a write inside"
        # new commands and new matches are refused at the door; nothing of them is stored
        with pytest.raises(redis.exceptions.OutOfMemoryError):
            client.send(meta.match_id, seat, creds[seat], "take", {"n": 1})
        with pytest.raises(redis.exceptions.OutOfMemoryError):
            client.create_match("nim", 2, match_id="oom-new")
        assert not list(raw.scan_iter(match="*oom-new*"))
        time.sleep(1.5)  # a few claim rounds at the limit
        assert match_keys(raw, meta.match_id) == before, "a match changed at the memory limit"
        assert worker.poll() is None and projector.poll() is None, "a process stopped at the memory limit"
        assert client.backend.store.result(meta.match_id, pending) is None

        admin.config_set("maxmemory", limit)  # memory freed: the pending command is applied, once
        result = client.wait_result(meta.match_id, pending, timeout_s=30)
        assert result.status == "accepted" and result.version == first.version + 1, result
        assert client.wait_view(meta.match_id, "public", result.version, 30).version == result.version
        log = trusted.store.read_log(meta.match_id)
        assert [e.version for e in log] == list(range(1, result.version + 1))
        assert worker.poll() is None and projector.poll() is None
    finally:
        admin.config_set("maxmemory", limit)
        for proc in (worker, projector):
            if proc.poll() is None:
                proc.send_signal(signal.SIGCONT)
            stop(proc)
        trusted.close()
        as_worker.close()
        raw.close()
        admin.close()


def test_a_full_redis_is_told_apart_from_one_that_is_down(server: RedisServer) -> None:
    """#32: at maxmemory the gateway (a real process, as the ``gateway`` user) answers a new match with 503
    ``store_full`` ("the service's store is full"), not ``unavailable``, and counts it in
    ``airship_gateway_store_full_total`` (what the alert AirshipRedisFull's runbook points at); with memory freed
    the same request succeeds."""
    import httpx

    from services.gateway.launch import wait_ready
    from tests.gateway.stack import free_port, spawn_gateway
    from tests.pipeline.redis_fixtures import spawn

    settings = Settings(redis_url=server.url("gateway"), key_prefix=KP.prefix, partitions=KP.partitions, block_ms=50)
    port = free_port()
    gateway = spawn_gateway(settings, port)
    worker = spawn(settings.with_(redis_url=server.url("worker")))  # it creates the matches (match.create)
    admin = server.admin()
    limit = str(admin.config_get("maxmemory")["maxmemory"])
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(url, gateway)
        with httpx.Client(base_url=url, timeout=30.0) as http:
            assert http.post("/matches", json={"game": "nim", "seats": 2}).status_code == 201
            admin.config_set("maxmemory", 1)
            full = http.post("/matches", json={"game": "nim", "seats": 2})
            assert full.status_code == 503, full.text
            assert full.json()["code"] == "store_full" and "full" in full.json()["detail"], full.text
            assert full.headers["Retry-After"] == "30"
            counted = http.get("/metrics").text
            assert "airship_gateway_store_full_total 1.0" in counted, counted[-2000:]
            admin.config_set("maxmemory", limit)
            assert http.post("/matches", json={"game": "nim", "seats": 2}).status_code == 201
    finally:
        admin.config_set("maxmemory", limit)
        admin.close()
        stop(gateway)
        stop(worker)
