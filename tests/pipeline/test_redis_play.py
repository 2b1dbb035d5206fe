"""End to end on Redis: ``airship play --redis`` against the in-process default, subscriptions across
reconnects, the lobby and spectator commands (through the gateway), and the bench command with tiny numbers."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from services.cli import main
from services.pipeline.direct import DirectClient
from services.pipeline.redis_backend import RedisBackend
from services.pipeline.redis_local import LocalServices
from services.settings import Settings
from tests.gateway.stack import GatewayStack, gateway_stack
from tests.pipeline.redis_fixtures import ROOT, spawn, stop

__all__ = ["gateway_stack"]  # the fixture of the lobby, send and watch test

pytestmark = pytest.mark.redis


def _events(path: Path) -> list[dict[str, object]]:
    return [{k: v for k, v in json.loads(line).items() if k not in ("match_id", "command_id")}
            for line in path.read_text().splitlines()]


@pytest.mark.parametrize("seed", [3, 9])
def test_play_on_redis_ends_exactly_as_in_process(redis_settings: Settings, tmp_path: Path, seed: int,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("AIRSHIP_KEY_PREFIX", redis_settings.key_prefix)
    common = ["play", "--game", "nim", "--players", "3", "--seed", str(seed), "--quiet"]
    assert main([*common, "--save-log", str(tmp_path / "memory.jsonl")]) == 0
    in_process = capsys.readouterr().out
    try:
        assert main([*common, "--redis", redis_settings.redis_url, "--save-log", str(tmp_path / "redis.jsonl")]) == 0
    finally:
        backend = RedisBackend(redis_settings)
        for key in backend.redis.scan_iter(match=f"{redis_settings.key_prefix}-play-*"):
            backend.redis.unlink(key)
    on_redis = capsys.readouterr().out
    assert _events(tmp_path / "redis.jsonl") == _events(tmp_path / "memory.jsonl")
    assert on_redis.split("\n", 1)[1] == in_process.split("\n", 1)[1]  # the scores, after the match line


def test_a_subscription_resumed_after_a_reconnect_misses_and_repeats_nothing(redis_settings: Settings) -> None:
    services = LocalServices(redis_settings).start()
    client = DirectClient(RedisBackend(redis_settings), poll_ms=50)
    meta = client.create_match("tally", 1, {"max_total": 30})
    cred = client.join(meta.match_id, 0)[1]
    seen: list[int] = []

    def player() -> None:
        for _ in range(10):
            client.call(meta.match_id, 0, cred, "add", {"n": 3}, timeout_s=10)

    thread = threading.Thread(target=player)
    thread.start()
    try:
        for record in client.subscribe(meta.match_id, "0", timeout_s=10):
            seen.append(record.version)
            if len(seen) == 3:
                break  # the subscriber disconnects...
        fresh = DirectClient(RedisBackend(redis_settings), poll_ms=50)  # ...and reconnects from its last version
        for record in fresh.subscribe(meta.match_id, "0", after_version=seen[-1], timeout_s=10):
            seen.append(record.version)
    finally:
        thread.join()
        services.stop()
    assert seen == sorted(set(seen)), "in order, each once"
    assert seen[-1] == 11 and seen[0] >= 1


@pytest.mark.gateway
def test_lobby_send_and_watch_commands(gateway_stack: GatewayStack, capsys: pytest.CaptureFixture[str]) -> None:
    """The player commands go through the gateway (``--url``); the stored meta has only the token's hash."""
    url = ["--url", gateway_stack.url]
    assert main(["lobby", "create", "--game", "tally", "--seats", "1", "-o", "max_total=4", *url]) == 0
    match_id = json.loads(capsys.readouterr().out)["match_id"]
    assert main(["lobby", "list", "--status", "open", "--game", "tally", *url]) == 0
    assert match_id in [json.loads(line)["match_id"] for line in capsys.readouterr().out.splitlines()]
    assert main(["lobby", "join", match_id, *url]) == 0
    joined = json.loads(capsys.readouterr().out)
    assert joined["seat"] == 0 and joined["token"]
    stored = RedisBackend(gateway_stack.settings).store.meta(match_id)
    assert stored is not None and joined["token"] not in repr(stored), "only the hash is stored"
    send = ["send", match_id, "--token", joined["token"], "--type", "add", *url]
    assert main([*send, "--body", '{"n": 4}']) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "accepted"
    assert main([*send, "--body", '{"n": 4}']) == 1
    assert json.loads(capsys.readouterr().out)["code"] == "game_over"
    assert main(["watch", match_id, "--idle-timeout-s", "10", *url]) == 0
    views = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert views[-1]["version"] == 2 and views[-1]["view"]["finished"]


def test_the_bench_command_runs_with_tiny_numbers(redis_settings: Settings) -> None:
    out = subprocess.run([sys.executable, "-m", "services.cli", "bench", "pipeline", "--redis",
                          redis_settings.redis_url, "--prefix", redis_settings.key_prefix, "--partitions", "4",
                          "--workers", "1", "--matches", "2", "--commands", "20", "--xadd-requests", "200",
                          "--game-commands", "30", "--seconds", "1"],
                         capture_output=True, text=True, timeout=120, cwd=ROOT, check=True).stdout
    assert "1 worker" in out and "commands/s" in out and "XADD" in out


def test_a_worker_process_serves_its_metrics(redis_settings: Settings, procs: list[subprocess.Popen[bytes]]) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    procs.append(spawn(redis_settings, AIRSHIP_METRICS_PORT=str(port)))
    client = DirectClient(RedisBackend(redis_settings))
    meta = client.create_match("tally", 1)
    cred = client.join(meta.match_id, 0)[1]
    assert client.call(meta.match_id, 0, cred, "add", {"n": 1}, timeout_s=20).status == "accepted"
    assert client.call(meta.match_id, 0, cred, "bogus", {}, timeout_s=20).status == "rejected"
    # The worker counts a command once its result is stored, so a client can read the result a moment before
    # the counter moves: scrape until both counters show (as Prometheus would on its next scrape).
    wanted = ['airship_commands_total{game="tally",outcome="accepted"} 1.0',
              'airship_commands_total{game="tally",outcome="rejected"} 1.0']
    deadline = time.monotonic() + 10
    while True:
        text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
        if all(line in text for line in wanted) or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert all(line in text for line in wanted), text
    assert "airship_append_seconds_bucket" in text and "airship_decide_seconds_bucket" in text
    assert stop(procs[0]) == 0
