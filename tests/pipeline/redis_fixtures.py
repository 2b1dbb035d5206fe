"""Redis fixtures: each test gets its own key prefix on the server named by ``AIRSHIP_TEST_REDIS_URL``
(default redis://127.0.0.1:6379/0) and every key under it is deleted afterwards. The tests never depend
on what else the server holds. An unreachable server fails the tests (with a clear message): CI starts
one, and a silent skip would hide that nothing was tested."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis

from services.pipeline.redis_backend import RedisBackend, connect, delete_prefix
from services.settings import Settings

REDIS_URL = os.environ.get("AIRSHIP_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
ROOT = Path(__file__).resolve().parents[2]
GAME_MODULES = "tests.pipeline.nim,tests.pipeline.poison,services.pipeline.bench_game:TALLY"


@pytest.fixture(scope="session")
def redis_url() -> str:
    try:
        connect(REDIS_URL).ping()
    except redis.ConnectionError as e:
        pytest.fail(f"Redis is not reachable at {REDIS_URL} ({e}); start one with "
                    "`redis-server --daemonize yes --port 6379 --save '' --appendonly no` "
                    "or point AIRSHIP_TEST_REDIS_URL at one", pytrace=False)
    return REDIS_URL


@pytest.fixture
def redis_settings(redis_url: str) -> Iterator[Settings]:
    """Settings with a fresh key prefix (4 partitions, short blocks); the prefix is wiped afterwards."""
    settings = Settings(redis_url=redis_url, key_prefix=f"airship-test-{uuid.uuid4().hex[:8]}", partitions=4,
                        block_ms=50, claim_every_s=0.2)
    yield settings
    delete_prefix(connect(redis_url), settings.key_prefix)


@pytest.fixture
def redis_backend(redis_settings: Settings) -> Iterator[RedisBackend]:
    backend = RedisBackend(redis_settings)
    yield backend
    backend.close()


def spawn(settings: Settings, kind: str = "worker", fault: str | None = None, **env: str) -> subprocess.Popen[bytes]:
    """``airship worker|projector`` as a real process on the test's prefix. ``fault``: AIRSHIP_FAULT
    (see services/faults.py). The test games (nim, poison) and the bench game are loaded into it."""
    full_env = {**os.environ, "AIRSHIP_GAME_MODULES": GAME_MODULES, "AIRSHIP_BLOCK_MS": str(settings.block_ms),
                "AIRSHIP_CLAIM_IDLE_MS": str(settings.claim_idle_ms),
                "AIRSHIP_CLAIM_EVERY_S": str(settings.claim_every_s),
                "AIRSHIP_MAX_DELIVERIES": str(settings.max_deliveries),
                "AIRSHIP_WORKER_BATCH": str(settings.worker_batch_size), **env}
    full_env.pop("AIRSHIP_FAULT", None)
    if fault:
        full_env["AIRSHIP_FAULT"] = fault
    cmd = [sys.executable, "-m", "services.cli", "--log-level", "error", kind, "--redis", settings.redis_url,
           "--prefix", settings.key_prefix, "--partitions", str(settings.partitions)]
    return subprocess.Popen(cmd, env=full_env, cwd=ROOT)


def stop(proc: subprocess.Popen[bytes], timeout_s: float = 10.0) -> int:
    """SIGTERM, then wait; SIGKILL if it does not stop in time. Returns the exit code."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()


@pytest.fixture
def procs() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Processes a test starts; any still running at the end are killed."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for proc in started:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def wait_until(predicate: Callable[[], bool], timeout_s: float = 20.0, every_s: float = 0.05) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout_s}s")
        time.sleep(every_s)
