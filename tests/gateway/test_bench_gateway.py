"""``airship bench gateway`` end to end, small: its own worker, projector and gateway processes, load from
separate processes, both runs complete. No timing assertions: machines are noisy."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from typing import Any

import pytest

from services.pipeline.redis_backend import connect
from tests.pipeline.redis_fixtures import ROOT

pytestmark = [pytest.mark.redis, pytest.mark.gateway]

COMMANDS = 200
ONE_CLIENT = 30


def _check(run: dict[str, Any], commands: int) -> None:
    assert run["commands"] == commands
    assert run["results"] == commands, run["errors"]
    assert run["missing"] == 0
    assert run["accepted"] == commands, run["statuses"]
    assert run["commands_per_s"] > 0
    assert 0 < run["p50_ms"] <= run["p90_ms"] <= run["p99_ms"] <= run["max_ms"]
    assert run["errors"] == []


def test_bench_gateway_json(redis_url: str) -> None:
    prefix = f"airship-test-{uuid.uuid4().hex[:8]}"
    out = subprocess.run(
        [sys.executable, "-m", "services.cli", "bench", "gateway", "--redis", redis_url, "--json",
         "--commands", str(COMMANDS), "--one-client-commands", str(ONE_CLIENT), "--prefix", prefix],
        capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    report = json.loads(out.stdout)
    assert report["bench"] == "gateway"
    assert set(report["runs"]) == {"direct", "gateway"}
    for run in report["runs"].values():
        _check(run, COMMANDS)
    assert set(report["one_client"]) == {"direct", "gateway"}
    for run in report["one_client"].values():
        _check(run, ONE_CLIENT)
    assert report["complete"] is True
    assert report["throughput_ratio"] > 0
    assert isinstance(report["added_p50_ms"], float)
    assert report["runs"]["gateway"]["cpu_ms_per_command"].get("load", 0) > 0
    assert "bench gateway:" in out.stderr  # progress goes to stderr, the JSON alone to stdout
    assert not list(connect(redis_url).scan_iter(match=f"{prefix}*", count=1000))  # its keys are deleted
