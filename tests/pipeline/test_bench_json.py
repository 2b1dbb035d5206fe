"""``airship bench ... --json``: every bench prints one JSON object per line, with tiny numbers here."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from services.games import builtin_games
from services.settings import Settings
from tests.pipeline.redis_fixtures import ROOT


def bench(*args: str) -> list[dict[str, Any]]:
    out = subprocess.run([sys.executable, "-m", "services.cli", "bench", *args, "--json"], capture_output=True,
                         text=True, timeout=180, cwd=ROOT, check=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_reducers_and_replay_report_every_builtin_game() -> None:
    reducers = bench("reducers", "--matches", "2")
    assert [r["game"] for r in reducers] == builtin_games() and all(r["steps_per_s"] > 0 for r in reducers)
    replay = bench("replay", "--matches", "2")
    assert [r["game"] for r in replay] == builtin_games()
    assert all(r["events_per_s"] > 0 and r["events"] > 0 for r in replay)


@pytest.mark.redis
def test_pipeline_reports_the_ratio_to_single_client_xadd(redis_settings: Settings) -> None:
    (out,) = bench("pipeline", "--redis", redis_settings.redis_url, "--prefix", redis_settings.key_prefix,
                   "--partitions", "4", "--workers", "1", "--matches", "2", "--commands", "20",
                   "--xadd-requests", "500")
    assert out["bench"] == "pipeline" and out["runs"][0]["commands_per_s"] > 0
    assert out["ratio_to_single_client_xadd"] is not None and 0 < out["ratio_to_single_client_xadd"] < 1


@pytest.mark.redis
def test_memory_reports_bytes_per_event_and_per_match(redis_settings: Settings) -> None:
    (out,) = bench("memory", "--redis", redis_settings.redis_url, "--prefix", redis_settings.key_prefix,
                   "--partitions", "4", "--matches", "1")
    assert out["matches"] == len(builtin_games()) and out["events"] > 0
    assert 0 < out["log_bytes_per_event"] <= out["bytes_per_event"]
    assert out["bytes_per_finished_match"] > out["log_bytes_per_finished_match"] > 0
