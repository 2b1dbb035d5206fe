"""Seat credentials with the embedded trusted client (the gateway has its own tests in tests/gateway):
another seat's, a stale (an earlier match's), a missing or a mangled credential is rejected before
anything is published and changes nothing; and no credential ever appears in the event logs, views, results, dead
letters, the services' logs (debug level, captured from real processes) or a /metrics scrape."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from schemas.codec import pack_obj
from services.bots.base import RandomBot
from services.bots.runner import play_match
from services.chaos.checks import tokens_in
from services.chaos.redis_server import free_port
from services.pipeline.direct import DirectClient
from services.pipeline.redis_backend import RedisBackend
from services.pipeline.redis_streams import entries_of
from services.settings import Settings
from tests.pipeline.redis_fixtures import GAME_MODULES, ROOT, stop, wait_until

pytestmark = pytest.mark.redis
Procs = list[subprocess.Popen[bytes]]


def _service(settings: Settings, kind: str, log: Path, metrics_port: int) -> subprocess.Popen[bytes]:
    env = {"AIRSHIP_GAME_MODULES": GAME_MODULES, "AIRSHIP_BLOCK_MS": "50", "AIRSHIP_CLAIM_IDLE_MS": "200",
           "AIRSHIP_CLAIM_EVERY_S": "0.1", "AIRSHIP_MAX_DELIVERIES": "2", "AIRSHIP_METRICS_PORT": str(metrics_port)}
    cmd = [sys.executable, "-m", "services.cli", "--log-level", "debug", kind, "--redis", settings.redis_url,
           "--prefix", settings.key_prefix, "--partitions", str(settings.partitions)]
    with log.open("wb") as err:
        return subprocess.Popen(cmd, env={**os.environ, **env}, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err)


def _scrape(port: int) -> bytes:
    deadline = time.monotonic() + 10
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2) as r:
                return bytes(r.read())
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def _stored(backend: RedisBackend) -> list[bytes]:
    """Every value under the test's prefix but the command streams (the transport, trimmed once handled)."""
    r, blobs = backend.redis, []
    for key in r.scan_iter(match=f"{backend.settings.key_prefix}:*"):
        if key.endswith(b":commands"):
            continue
        kind = r.type(key)
        if kind == b"stream":
            blobs += [v for _, fields in entries_of(r.xrange(key)) for v in fields.values()]
        elif kind == b"hash":
            blobs += list(r.hgetall(key).values())
        else:
            blobs.append(r.dump(key) or b"")
    return blobs


def test_wrong_stale_and_missing_credentials_are_rejected_and_nothing_leaks(
        redis_settings: Settings, procs: Procs, tmp_path: Path) -> None:
    backend = RedisBackend(redis_settings)
    client = DirectClient(backend, poll_ms=50)
    ports = [free_port(), free_port()]
    procs.append(_service(redis_settings, "worker", tmp_path / "worker.log", ports[0]))
    procs.append(_service(redis_settings, "projector", tmp_path / "projector.log", ports[1]))

    old = client.create_match("nim", 2, seed=1)
    stale = [client.join(old.match_id, s)[1] for s in range(2)]
    meta = client.create_match("nim", 2, seed=2)
    creds = [client.join(meta.match_id, s)[1] for s in range(2)]
    client.wait_view(meta.match_id, "public", backend.store.version(meta.match_id), timeout_s=30)
    to_act = client.view(meta.match_id, "public").view["to_act"][0]  # type: ignore[union-attr]
    other = 1 - to_act
    before = backend.store.version(meta.match_id)
    attempts = {"another seat's": creds[other], "stale": stale[to_act], "missing": None, "empty": "",
                "truncated": creds[to_act][:-1], "other case": creds[to_act].swapcase()}
    for label, credential in attempts.items():
        result = client.call(meta.match_id, to_act, credential, "take", {"n": 1}, timeout_s=30)
        assert result.status == "rejected" and result.code == "unauthorized", (label, result)
    assert backend.store.version(meta.match_id) == before, "a rejected credential changes nothing"
    # a malformed envelope carrying a credential, and a command that fails until it is dead-lettered
    client.send_raw(meta.match_id, pack_obj({"command_id": "bad-1", "match_id": meta.match_id, "seat": to_act,
                                             "credential": creds[to_act]}))
    client.send(meta.match_id, to_act, creds[to_act], "explode", {}, command_id="boom-1")
    assert client.wait_result(meta.match_id, "bad-1", timeout_s=30).code == "bad_envelope"
    assert client.wait_result(meta.match_id, "boom-1", timeout_s=30).code == "failed"
    report = play_match(client, "nim", 2, [RandomBot(1), RandomBot(2)], seed=3, timeout_s=30)
    secrets = {c.encode() for c in [*stale, *creds]}
    scraped = [_scrape(port) for port in ports]
    wait_until(lambda: not sum(backend.bus.lag().values()))
    for proc in procs:
        assert stop(proc) == 0
    assert report.version > 0
    logs = [(tmp_path / name).read_bytes() for name in ("worker.log", "projector.log")]
    assert b"dead letter" in logs[0] and b"accepted" in logs[0], "the logs were captured at debug level"
    for blob in [*_stored(backend), *scraped, *logs]:
        assert not tokens_in(blob, 32) & secrets
        assert not any(s in blob for s in secrets)
