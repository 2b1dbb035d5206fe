"""A worker killed with its partitions' commands in hand is replaced within 3 s (#32; it took 15 s: a dead
worker's share moved only when its heartbeat expired, 3 claim periods, and the commands it held waited for the
claim idle time, 30 s), and no partition is ever served by two workers at once (each serves only the partitions
it holds a lease on, ``{p}:lease``, see ``Worker._share``). Real ``airship worker`` processes on Redis, with the
production defaults of the claim settings (claim every 5 s, idle 30 s) and of the lease (1.5 s)."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from services.pipeline.direct import DirectClient
from services.pipeline.redis_backend import RedisBackend
from services.settings import Settings
from tests.pipeline.redis_fixtures import GAME_MODULES, ROOT, stop, wait_until

pytestmark = pytest.mark.redis
TAKEOVER_S = 3.0


def spawn_logged(settings: Settings, name: str, log: Path, fault: str | None = None) -> subprocess.Popen[bytes]:
    env = {**os.environ, "AIRSHIP_GAME_MODULES": GAME_MODULES}
    env.pop("AIRSHIP_FAULT", None)
    if fault:
        env["AIRSHIP_FAULT"] = fault
    cmd = [sys.executable, "-m", "services.cli", "--log-level", "info", "worker", "--redis", settings.redis_url,
           "--prefix", settings.key_prefix, "--partitions", str(settings.partitions), "--consumer", name]
    return subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log.open("wb"))


def leases(log: Path) -> list[dict[str, object]]:
    out = []
    for line in log.read_text(errors="replace").splitlines():
        if '"partitions leased"' in line:
            out.append(json.loads(line))
    return out


def holders(backend: RedisBackend) -> dict[int, str | None]:
    r = backend.redis
    return {p: (v.decode() if v else None) for p in range(backend.settings.partitions)
            for v in [r.get(backend.settings.keys.lease(p))]}


def match_in(client: DirectClient, partition: int, keys_partition: object) -> tuple[str, list[str]]:
    for seed in range(1000):
        meta = client.create_match("nim", 2, seed=seed)
        if keys_partition(meta.match_id) == partition:  # type: ignore[operator]
            return meta.match_id, [client.join(meta.match_id, s)[1] for s in range(2)]
    raise AssertionError(f"no match in partition {partition}")


def test_a_killed_workers_partitions_are_served_again_within_3_s(redis_settings: Settings, tmp_path: Path) -> None:
    settings = redis_settings.with_(partitions=8)
    backend = RedisBackend(settings)
    client = DirectClient(backend, poll_ms=10)
    keys = settings.keys
    victim = spawn_logged(settings, "victim", tmp_path / "victim.log", fault="after_read")
    wait_until(lambda: set(holders(backend).values()) == {"victim"}, timeout_s=30)
    other = spawn_logged(settings, "other", tmp_path / "other.log")
    try:
        wait_until(lambda: set(holders(backend).values()) == {"victim", "other"}, timeout_s=30)
        lost = sorted(p for p, h in holders(backend).items() if h == "victim")
        matches = {p: match_in(client, p, keys.partition) for p in lost}
        first, (mid, creds) = lost[0], matches[lost[0]]
        in_hand = client.send(mid, 0, creds[0], "take", {"n": 1})  # the victim reads it and dies holding it
        wait_until(lambda: victim.poll() is not None, timeout_s=30)
        died = time.monotonic()
        sent = {p: client.send(matches[p][0], 0, matches[p][1][0], "take", {"n": 1}) for p in lost[1:]}
        waited = {}
        for p, cid in [(first, in_hand), *sent.items()]:
            result = client.wait_result(matches[p][0], cid, timeout_s=30)
            assert result.status == "accepted", result
            waited[p] = time.monotonic() - died
        print(f"\ntakeover after kill: {max(waited.values()):.2f} s (per partition: "
              f"{', '.join(f'{p}: {s:.2f}' for p, s in sorted(waited.items()))})")
        assert max(waited.values()) <= TAKEOVER_S, waited
        assert set(holders(backend).values()) == {"other"}
    finally:
        victim.kill()
        victim.wait()
        stop(other)


def test_a_joining_worker_serves_nothing_its_predecessor_still_serves(redis_settings: Settings,
                                                                      tmp_path: Path) -> None:
    """A alone holds every partition; B joins: A gives up half (it stops serving them at the instant it asks,
    ``asked_at``) and B takes each only after that; then B leaves (SIGTERM) and A takes them back only after
    B gave them up. Read from both workers' logs."""
    settings = redis_settings.with_(partitions=8)
    backend = RedisBackend(settings)
    logs = {"a": tmp_path / "a.log", "b": tmp_path / "b.log"}
    a = spawn_logged(settings, "a", logs["a"])
    b = None
    try:
        wait_until(lambda: set(holders(backend).values()) == {"a"}, timeout_s=30)
        b = spawn_logged(settings, "b", logs["b"])
        wait_until(lambda: set(holders(backend).values()) == {"a", "b"}, timeout_s=30)
        assert stop(b) == 0
        wait_until(lambda: set(holders(backend).values()) == {"a"}, timeout_s=30)
        time.sleep(0.5)
    finally:
        if b is not None:
            stop(b)
        stop(a)
    # Serving intervals per partition: from the log line of the gain (written after the lease was granted) to
    # the asked_at of the call that gave it up (it served nothing of it after that instant).
    intervals: dict[int, list[tuple[str, float, float]]] = {}
    for name, log in logs.items():
        since: dict[int, float] = {}
        for entry in leases(log):
            now = {int(p) for p in entry["partitions"]}  # type: ignore[attr-defined]
            for p in now - set(since):
                since[p] = _ts(str(entry["timestamp"]))
            for p in set(since) - now:
                intervals.setdefault(p, []).append((name, since.pop(p), float(str(entry["asked_at"]))))
        for p, start in since.items():
            intervals.setdefault(p, []).append((name, start, float("inf")))
    assert {n for spans in intervals.values() for n, *_ in spans} == {"a", "b"}
    assert sum(len(spans) for spans in intervals.values()) >= 8 + 8, intervals  # a's, b's half, a's again
    for p, spans in intervals.items():
        spans.sort(key=lambda s: s[1])
        for (n1, _s1, e1), (n2, s2, _e2) in itertools.pairwise(spans):
            assert n1 != n2 and e1 <= s2, f"partition {p}: {n1} served until {e1}, {n2} from {s2}"


def _ts(stamp: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
