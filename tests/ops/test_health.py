"""The liveness and readiness endpoints, with a fake clock and fake checks, and against a real Redis."""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from services.health import Health, HealthServer, probe, redis_group_check


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def get(port: int, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
            return r.status, r.read().decode().strip()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode().strip()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def reason() -> list[str | None]:
    return [None]


@pytest.fixture
def server(clock: Clock, reason: list[str | None]) -> Iterator[HealthServer]:
    health = Health(check=lambda: reason[0], stale_after_s=30, clock=clock)
    srv = HealthServer(health, 0, host="127.0.0.1").start()
    yield srv
    srv.stop()


def test_live_and_ready_when_the_loop_ticks_and_the_check_passes(server: HealthServer) -> None:
    assert get(server.port, "/healthz") == (200, "ok")
    assert get(server.port, "/readyz") == (200, "ok")


def test_not_ready_with_the_reason_of_the_check(server: HealthServer, reason: list[str | None]) -> None:
    reason[0] = "consumer group 'workers' is missing on airship:{3}:commands"
    assert get(server.port, "/readyz") == (503, reason[0])
    assert get(server.port, "/healthz")[0] == 200  # not ready is no reason to restart


def test_a_loop_that_stops_beating_is_neither_live_nor_ready(server: HealthServer, clock: Clock) -> None:
    clock.now += 31
    status, text = get(server.port, "/healthz")
    assert status == 503 and "has not ticked for 31s" in text
    assert get(server.port, "/readyz")[0] == 503
    server.health.beat()
    assert get(server.port, "/healthz") == (200, "ok")


def test_a_check_that_raises_means_not_ready(clock: Clock) -> None:
    def broken() -> str | None:
        raise RuntimeError("boom")

    ok, text = Health(check=broken, clock=clock).ready()
    assert not ok and "boom" in text


def test_unknown_paths_are_404(server: HealthServer) -> None:
    assert get(server.port, "/metrics")[0] == 404


def test_probe_exit_status(server: HealthServer, reason: list[str | None]) -> None:
    assert probe("ready", server.port) == 0
    reason[0] = "redis does not answer"
    assert probe("ready", server.port) == 1
    assert probe("live", server.port) == 0


def test_probe_without_a_server_fails(server: HealthServer) -> None:
    port = server.port
    server.stop()
    assert probe("live", port, timeout_s=1) == 1


class FakeRedis:
    def __init__(self, groups: dict[str, list[dict[str, Any]]], up: bool = True) -> None:
        self.groups = groups
        self.up = up

    def ping(self) -> bool:
        if not self.up:
            raise ConnectionError("connection refused")
        return True

    def xinfo_groups(self, name: str) -> list[dict[str, Any]]:
        if name not in self.groups:
            raise KeyError("no such key")
        return self.groups[name]


def test_redis_group_check_with_a_fake() -> None:
    streams = ["p:{0}:commands", "p:{1}:commands"]
    fine = FakeRedis({s: [{"name": b"workers", "lag": 0}] for s in streams})
    assert redis_group_check(fine, streams, "workers")() is None
    assert "does not answer" in (redis_group_check(FakeRedis({}, up=False), streams, "workers")() or "")
    missing = FakeRedis({streams[0]: [{"name": "workers"}], streams[1]: [{"name": "other"}]})
    assert redis_group_check(missing, streams, "workers")() == "consumer group 'workers' is missing on p:{1}:commands"
    assert "cannot read" in (redis_group_check(FakeRedis({}), streams, "workers")() or "")


@pytest.mark.redis
def test_redis_group_check_against_redis(redis_client: Any, key_prefix: str) -> None:
    streams = [f"{key_prefix}:{{{p}}}:commands" for p in range(2)]
    check = redis_group_check(redis_client, streams, "workers")
    assert "cannot read" in (check() or "")
    for stream in streams:
        redis_client.xgroup_create(stream, "workers", id="0", mkstream=True)
    assert check() is None
