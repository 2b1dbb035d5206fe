"""``airship chaos --stack`` on every CI run: the shipped configuration (the stack of docker-compose.yml as real
processes: redis.conf, users.acl, each process its own Redis user), bots playing through the gateway from
addresses of their own, and a worker, the projector, the gateway and redis-server each SIGKILLed and restarted
at least once mid-play. Every guarantee must hold (services/chaos/checks.py), and the leak check is shown to see a
seat token where one is."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from services.chaos.checks import _found

pytestmark = [pytest.mark.slow, pytest.mark.gateway]
ROOT = Path(__file__).resolve().parents[2]


def test_the_leak_check_finds_a_gateway_seat_token() -> None:
    secret = b"0123456789abcdef" * 3  # the part of "<seat>.<48 hex>" that is secret
    assert _found(b'{"event": "joined", "token": "2.' + secret + b'"}', {secret}) == {secret}
    assert _found(b"nothing here " + secret[:-1], {secret}) == set()


def test_the_shipped_stack_under_kills_of_every_process_loses_and_repeats_nothing(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "services.cli", "chaos", "--stack", "--matches", "3",
                           "--concurrency", "3", "--kill-every-s", "5", "--min-kills", "4", "--timeout-s", "90",
                           "--seed", "3", "--stack-dir", str(tmp_path / "stack"), "--json"],
                          capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert done.stdout, done.stderr[-3000:]
    report = json.loads(done.stdout)["chaos"]
    summary = {k: report[k] for k in ("matches_finished", "process_kills", "violations", "errors", "findings")}
    assert done.returncode == 0 and report["violations"] == 0, summary
    assert report["matches"] >= 3 and report["matches_finished"] == report["matches"], summary
    assert set(report["process_kills"]) == {"worker", "projector", "gateway", "redis"}, summary
    assert report["findings"]["acked_before_restart"] > 0, summary
    assert report["results_received"] > 100, summary
