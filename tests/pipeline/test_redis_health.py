"""The worker and projector processes serve /healthz and /readyz on AIRSHIP_HEALTH_PORT: green while their
loops turn (idle or busy, for longer than the liveness window), red while a loop really stalls; and they
honour SIGTERM while Redis is frozen."""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from services.pipeline.direct import DirectClient
from services.pipeline.redis_backend import RedisBackend, connect
from services.settings import Settings
from tests.pipeline.redis_fixtures import spawn, stop, wait_until

pytestmark = pytest.mark.redis


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def status(port: int, path: str) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=2) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as e:
        return e.code
    except OSError:
        return 0


@pytest.mark.parametrize("kind", ["worker", "projector"])
def test_a_running_process_is_live_and_ready(redis_settings: Settings, procs: list[subprocess.Popen[bytes]],
                                             kind: str) -> None:
    port = free_port()
    proc = spawn(redis_settings, kind, AIRSHIP_HEALTH_PORT=str(port))
    procs.append(proc)
    wait_until(lambda: status(port, "/readyz") == 200, timeout_s=20)
    assert status(port, "/healthz") == 200
    assert status(port, "/nope") == 404
    assert stop(proc) == 0
    assert status(port, "/healthz") == 0, "the endpoint goes away with the process"


# -- the liveness window, with real processes ---------------------------------------------------------

STALE_S = 3  # the liveness window of these tests (AIRSHIP_HEALTH_STALE_S); the default is 60


def healthy(ports: list[int]) -> list[tuple[int, str, int]]:
    """(port, path, status) of every endpoint that does not answer 200."""
    return [(port, path, code) for port in ports for path in ("/healthz", "/readyz")
            if (code := status(port, path)) != 200]


def watch(ports: list[int], seconds: float, every_s: float = 0.25) -> None:
    """Every endpoint answers 200 all along."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert not healthy(ports), "an endpoint went red while the loop was turning"
        time.sleep(every_s)


def start(settings: Settings, procs: list[subprocess.Popen[bytes]], kind: str, stale_s: float | None = STALE_S,
          **env: str) -> int:
    port = free_port()
    extra = {"AIRSHIP_HEALTH_PORT": str(port), **env}
    if stale_s is not None:
        extra["AIRSHIP_HEALTH_STALE_S"] = str(stale_s)
    procs.append(spawn(settings, kind, **extra))
    wait_until(lambda: status(port, "/readyz") == 200, timeout_s=30)
    return port


def test_worker_and_projector_stay_live_and_ready_while_idle_and_busy(
    redis_settings: Settings, procs: list[subprocess.Popen[bytes]]
) -> None:
    settings = redis_settings.with_(block_ms=1000)  # idle reads block as long as in production
    ports = [start(settings, procs, "worker"), start(settings, procs, "projector")]
    watch(ports, 3 * STALE_S)  # idle for longer than the window
    backend = RedisBackend(settings)
    client = DirectClient(backend)
    meta = client.create_match("tally", 1)
    cred = client.join(meta.match_id, 0)[1]
    sent: list[str] = []

    def publish() -> None:
        for _ in range(600):
            sent.append(client.send(meta.match_id, 0, cred, "add", {"n": 1}))

    publisher = threading.Thread(target=publish)
    publisher.start()
    watch(ports, 2)
    publisher.join(timeout=60)
    while backend.store.result(meta.match_id, sent[-1]) is None:  # busy until the last is answered
        assert not healthy(ports)
        time.sleep(0.1)
    wait_until(lambda: (v := client.view(meta.match_id)) is not None and v.version == 1 + len(sent), timeout_s=60)
    watch(ports, 1)
    backend.close()
    for proc in procs:
        assert stop(proc) == 0


def _red_then_green(port: int, stall_s: float) -> None:
    wait_until(lambda: status(port, "/healthz") == 503, timeout_s=STALE_S + stall_s)
    assert status(port, "/readyz") == 503
    wait_until(lambda: not healthy([port]), timeout_s=2 * stall_s + 10)


def test_a_worker_whose_loop_stalls_goes_red_then_green(redis_settings: Settings,
                                                       procs: list[subprocess.Popen[bytes]]) -> None:
    port = start(redis_settings, procs, "worker")
    client = DirectClient(RedisBackend(redis_settings))
    meta = client.create_match("poison", 1)
    cred = client.join(meta.match_id, 0)[1]
    watch([port], STALE_S + 1)
    cid = client.send(meta.match_id, 0, cred, "sleep", {"s": 3 * STALE_S})
    _red_then_green(port, 3 * STALE_S)
    assert client.wait_result(meta.match_id, cid, timeout_s=10).status == "accepted"


def test_a_projector_whose_loop_stalls_goes_red_then_green(redis_settings: Settings,
                                                          procs: list[subprocess.Popen[bytes]]) -> None:
    start(redis_settings, procs, "worker", stale_s=None)
    port = start(redis_settings, procs, "projector")
    client = DirectClient(RedisBackend(redis_settings))
    meta = client.create_match("poison", 1)
    cred = client.join(meta.match_id, 0)[1]
    wait_until(lambda: client.view(meta.match_id) is not None)
    watch([port], STALE_S + 1)
    client.send(meta.match_id, 0, cred, "slow-view", {"s": 1.5 * STALE_S})  # two views: public and seat 0
    _red_then_green(port, 3 * STALE_S)


@pytest.mark.slow
def test_live_and_ready_for_more_than_the_default_window(redis_settings: Settings,
                                                                procs: list[subprocess.Popen[bytes]]) -> None:
    settings = redis_settings.with_(block_ms=1000)
    ports = [start(settings, procs, "worker", stale_s=None), start(settings, procs, "projector", stale_s=None)]
    client = DirectClient(RedisBackend(settings))
    meta = client.create_match("tally", 1)
    cred = client.join(meta.match_id, 0)[1]
    deadline = time.monotonic() + Settings().health_stale_s + 10  # a loop that stopped beating is red by then
    while time.monotonic() < deadline:
        assert not healthy(ports)
        client.send(meta.match_id, 0, cred, "add", {"n": 1})
        time.sleep(1)
    assert not healthy(ports)


# -- a frozen Redis -----------------------------------------------------------------------------------

@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A private redis-server on a free port (this test freezes it; never the shared one)."""
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    port = free_port()
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(tmp_path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    try:
        wait_until(lambda: _pings(url), timeout_s=10)
        yield url, proc
    finally:
        proc.send_signal(signal.SIGCONT)
        proc.terminate()
        proc.wait(timeout=10)


def _pings(url: str) -> bool:
    try:
        return bool(connect(url).ping())
    except redis.ConnectionError:
        return False


@pytest.mark.parametrize("kind", ["worker", "projector"])
def test_sigterm_is_honoured_while_redis_is_frozen(own_redis: tuple[str, subprocess.Popen[bytes]],
                                                   procs: list[subprocess.Popen[bytes]], kind: str) -> None:
    url, server = own_redis
    settings = Settings(redis_url=url, key_prefix="airship-frozen", partitions=4, block_ms=1000)  # the defaults
    port = start(settings, procs, kind, stale_s=None)
    server.send_signal(signal.SIGSTOP)
    time.sleep(1.5)  # the loop is now waiting on a reply that will not come
    started = time.monotonic()
    assert stop(procs[-1], timeout_s=20) == 0
    elapsed = time.monotonic() - started
    assert elapsed < 10, f"the {kind} took {elapsed:.1f}s to stop"
    assert status(port, "/healthz") == 0
