"""Day two on the stack of docker-compose.yml as real processes (#32): ``airship stack scale`` and ``airship stack
restart`` while a match is played through the gateway, and a rolling upgrade with two versions' workers side by
side (the commit this branch started from, unpacked from git, beside the current code), then the gateway
restarted; every match finishes, versions 1..n without a gap, nothing acknowledged lost."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import tarfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from services.bots.plugins import make_bot
from services.bots.runner import play_match
from services.client import GatewayClient
from tests.ops.conftest import ROOT, free_port
from tests.ops.test_redis_durability import password

pytestmark = pytest.mark.gateway
# The version before this one: main when the games moved into one folder each (#31; an older version's workers
# need the entry points of the version they were installed with). From a version older than match.create (#35),
# upgrade the workers first, then the gateways, then load the new users.acl (docs/operations.md, Upgrades).
OLD_VERSION = "9d996f5"


def airship(*args: str, timeout_s: float = 180.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "services.cli", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=timeout_s)


def state(directory: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((directory / "state.json").read_text())
    return data


def pids(directory: Path, service: str) -> dict[str, int]:
    return {p["name"]: p["pid"] for p in state(directory)["processes"] if p["service"] == service}


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] not in "ZX"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str, int]]:
    directory = tmp_path_factory.mktemp("stack-ops")
    redis_port, gateway_port = free_port(), free_port()
    done = airship("stack", "up", "--dir", str(directory), "--redis-port", str(redis_port), "--gateway-port",
                   str(gateway_port), "--services", "worker,projector,gateway", "--timeout-s", "90")
    try:
        assert done.returncode == 0, done.stderr
        yield directory, f"http://127.0.0.1:{gateway_port}", redis_port
    finally:
        airship("stack", "down", "--dir", str(directory), "--grace-s", "10")


class Player(threading.Thread):
    """Plays matches of a built-in game through the gateway (random bots), one after the other, until told to
    stop; the match in hand is played to its end."""

    def __init__(self, url: str, game: str = "moderne-zeiten") -> None:
        super().__init__(daemon=True)
        self.url, self.game = url, game
        self.stop = threading.Event()
        self.finished: list[str] = []
        self.errors: list[str] = []

    def run(self) -> None:
        with GatewayClient(self.url) as client:
            while not self.stop.is_set():
                try:
                    bots = [make_bot("random", self.game, seat) for seat in range(4)]
                    report = play_match(client, self.game, 4, bots, timeout_s=120)
                    self.finished.append(report.meta.match_id)
                except Exception as e:  # (the test fails on any)
                    self.errors.append(repr(e))
                    return

    def wait_for(self, more: int, timeout_s: float = 120.0) -> None:
        target = len(self.finished) + more
        deadline = time.monotonic() + timeout_s
        while len(self.finished) < target and not self.errors:
            assert time.monotonic() < deadline, f"{more} more matches did not finish"
            time.sleep(0.2)

    def end(self) -> None:
        self.stop.set()
        self.join(150)
        assert not self.is_alive(), "the last match did not finish"
        assert not self.errors, self.errors


def check_logs(url: str, matches: list[str]) -> None:
    with httpx.Client(base_url=url, timeout=30.0) as http:
        for match_id in matches:
            log = http.get(f"/matches/{match_id}/log").json()
            assert [e["version"] for e in log["events"]] == list(range(1, len(log["events"]) + 1)), match_id
            assert http.get(f"/matches/{match_id}").json()["status"] == "finished", match_id


def members(redis_port: int) -> set[str]:
    r = redis.Redis(port=redis_port, username="admin", password=password("admin"), decode_responses=True)
    try:
        return set(r.hkeys("airship:workers"))
    finally:
        r.close()


def lease_holders(redis_port: int) -> set[str]:
    r = redis.Redis(port=redis_port, username="admin", password=password("admin"), decode_responses=True)
    try:
        return {v for k in r.scan_iter("airship:{*}:lease") if (v := r.get(k))}
    finally:
        r.close()


def test_scale_and_restart_while_matches_are_played(stack: tuple[Path, str, int]) -> None:
    """Workers scaled up, restarted one by one and scaled down under play: nothing a player sees but a pause. The
    gateway restart closes its connections (clients reconnect), so it is done between matches."""
    directory, url, redis_port = stack
    player = Player(url)
    player.start()
    try:
        assert len(pids(directory, "worker")) == 2
        done = airship("stack", "scale", "--dir", str(directory), "worker", "3")
        assert done.returncode == 0, done.stderr
        workers = pids(directory, "worker")
        assert sorted(workers) == ["worker-1", "worker-2", "worker-3"] and all(map(alive, workers.values()))
        deadline = time.monotonic() + 20
        while len(lease_holders(redis_port)) < 3:
            assert time.monotonic() < deadline, lease_holders(redis_port)
            time.sleep(0.2)
        before = pids(directory, "worker")
        done = airship("stack", "restart", "--dir", str(directory), "worker")
        assert done.returncode == 0, done.stderr
        after = pids(directory, "worker")
        assert set(after) == set(before) and all(after[n] != before[n] for n in after)
        assert not any(alive(p) for p in before.values()) and all(map(alive, after.values()))
        done = airship("stack", "scale", "--dir", str(directory), "worker", "1")
        assert done.returncode == 0, done.stderr
        assert list(pids(directory, "worker")) == ["worker-1"]
        player.wait_for(1)
    finally:
        player.end()
    gateway = pids(directory, "gateway")
    done = airship("stack", "restart", "--dir", str(directory), "gateway")
    assert done.returncode == 0, done.stderr
    assert pids(directory, "gateway") != gateway
    after_restart = Player(url)
    after_restart.start()
    after_restart.wait_for(1)
    after_restart.end()
    status = airship("stack", "status", "--dir", str(directory))
    assert status.returncode == 0, status.stdout + status.stderr
    check_logs(url, player.finished + after_restart.finished)
    assert lease_holders(redis_port) == _consumers(directory)
    done = airship("stack", "scale", "--dir", str(directory), "worker", "2")
    assert done.returncode == 0, done.stderr


def _consumers(directory: Path) -> set[str]:
    """The consumer names of the running workers (host-pid, their default)."""
    return {f"{socket.gethostname()}-{pid}" for pid in pids(directory, "worker").values()}


def test_a_rolling_upgrade_runs_two_versions_side_by_side(stack: tuple[Path, str, int], tmp_path: Path) -> None:
    """The documented order (docs/operations.md, Upgrades): new workers join the old ones, the old ones leave,
    then the projectors and the gateways are restarted. Here the old version is OLD_VERSION's code (unpacked from
    git) run with the stack's own command and environment, the new one the current checkout."""
    directory, url, redis_port = stack
    old = tmp_path / "old"
    archive = tmp_path / "old.tar"
    done = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", "-o", str(archive), OLD_VERSION],
                          capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        pytest.skip(f"git cannot give {OLD_VERSION} here: {done.stderr.strip()}")
    old.mkdir()
    with tarfile.open(archive) as tar:
        tar.extractall(old, filter="data")
    spec = next(p for p in state(directory)["processes"] if p["service"] == "worker")
    env = {**spec["env"], "PYTHONPATH": str(old)}
    logs = [tmp_path / f"old-{i}.log" for i in range(2)]
    olds = [subprocess.Popen(spec["argv"], env={**env, "AIRSHIP_METRICS_PORT": str(free_port()),
                                                "AIRSHIP_HEALTH_PORT": str(free_port())},
                             cwd=old, stdout=log.open("wb"), stderr=subprocess.STDOUT)
            for log in logs]
    player = Player(url)
    player.start()
    try:
        old_names = {f"{socket.gethostname()}-{p.pid}" for p in olds}
        deadline = time.monotonic() + 60
        while not old_names <= members(redis_port):  # the old ones heartbeat as workers ...
            assert all(p.poll() is None for p in olds), [log.read_text(errors="replace")[-2000:] for log in logs]
            assert time.monotonic() < deadline, (members(redis_port), old_names)
            time.sleep(0.2)
        time.sleep(2)  # old and new workers serve side by side
        assert lease_holders(redis_port), "nobody serves the partitions"  # ... old and new share the leases
        player.wait_for(1)
        for proc, log in zip(olds, logs, strict=True):  # the old ones leave (SIGTERM: finish the batch, withdraw)
            proc.terminate()
            assert proc.wait(30) == 0, log.read_text(errors="replace")[-3000:]
        player.wait_for(1)
    finally:
        for proc in olds:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        player.end()
    for service in ("projector", "gateway"):  # between matches: the gateway closes its connections
        done = airship("stack", "restart", "--dir", str(directory), service)
        assert done.returncode == 0, done.stderr
    after = Player(url)
    after.start()
    after.wait_for(1)
    after.end()
    check_logs(url, player.finished + after.finished)
