"""``airship bench ... --json``: every bench prints one JSON object per line, with tiny numbers here."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from services.games import builtin_games
from services.pipeline.redis_backend import connect
from services.settings import Settings
from tests.pipeline.redis_fixtures import ROOT


def bench(*args: str) -> list[dict[str, Any]]:
    out = subprocess.run([sys.executable, "-m", "services.cli", "bench", *args, "--json"], capture_output=True,
                         text=True, timeout=180, cwd=ROOT, check=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_reducers_and_replay_report_every_builtin_game() -> None:
    reducers = bench("reducers", "--matches", "2")
    assert [r["game"] for r in reducers] == builtin_games() and all(r["steps_per_s"] > 0 for r in reducers)
    # a whole playout step also chooses the command, so it is never faster than decide+evolve alone
    assert all(0 < r["playout_steps_per_s"] <= r["steps_per_s"] for r in reducers)
    replay = bench("replay", "--matches", "2")
    assert [r["game"] for r in replay] == builtin_games()
    assert all(r["events_per_s"] > 0 and r["events"] > 0 for r in replay)


@pytest.mark.redis
def test_pipeline_reports_drains_open_loop_latency_and_xadd_ratios(redis_settings: Settings) -> None:
    (out,) = bench("pipeline", "--redis", redis_settings.redis_url, "--prefix", redis_settings.key_prefix,
                   "--partitions", "4", "--workers", "1,2", "--matches", "8", "--commands", "48",
                   "--generators", "2", "--game-commands", "20", "--rates", "0.1,300", "--seconds", "0.5",
                   "--xadd-requests", "500")
    assert out["bench"] == "pipeline" and out["complete"] is True
    drains = out["drain"]
    assert [(d["game"], d["workers"]) for d in drains] == [("tally", 1), ("tally", 2)]
    # six commands per match: two workers may conflict on a match, never 8 times in a row (a command left
    # pending after that waits 30 s to be claimed again)
    assert all(d["commands"] == 48 and d["matches"] == 8 and d["complete"] and d["commands_per_s"] > 0
               and 0 < d["seconds_to_99pct"] <= d["seconds"] for d in drains)
    games = out["games"]
    assert [g["game"] for g in games] == builtin_games()
    assert all(g["workers"] == 1 and g["commands"] >= 20 and g["complete"] and g["commands_per_s"] > 0
               and g["events"] >= g["commands"] for g in games)
    opens = out["open_loop"]["runs"]
    assert [o["fraction"] for o in opens] == [0.1, None] and opens[1]["offered_per_s"] == 300
    for o in opens:
        assert o["results"] == o["commands"] == o["accepted"] > 0 and o["missing"] == 0
        assert 0 < o["p50_ms"] <= o["p99_ms"] <= o["p99_9_ms"] <= o["max_ms"]
        assert o["cores_busy"] > 0 and o["cores"] >= 1  # the workers', Redis's and the generators' CPU, in cores
    xadd = out["xadd"]
    assert xadd["single_client"]["requests_per_s"] > 0 and xadd["pipelined"]["pipeline"] > 1
    assert set(out["ratios"]) == {"drain_1_worker_to_single_client_xadd", "drain_1_worker_to_pipelined_xadd",
                                  "best_drain_to_single_client_xadd", "best_drain_to_pipelined_xadd"}
    assert all(r is not None and r > 0 for r in out["ratios"].values())
    assert not connect(redis_settings.redis_url).keys(f"{redis_settings.key_prefix}*")  # every run cleaned up


@pytest.mark.redis
def test_memory_reports_bytes_per_event_and_per_match(redis_settings: Settings) -> None:
    (out,) = bench("memory", "--redis", redis_settings.redis_url, "--prefix", redis_settings.key_prefix,
                   "--partitions", "4", "--matches", "1")
    assert out["matches"] == len(builtin_games()) and out["events"] > 0
    assert 0 < out["log_bytes_per_event"] <= out["bytes_per_event"]
    assert out["bytes_per_finished_match"] > out["log_bytes_per_finished_match"] > 0
