"""A small chaos run on every CI run: two worker processes, one killed about every second, a private
Redis (AOF, appendfsync always) killed and restarted mid-run, bot matches of every built-in game.
Every guarantee of DESIGN.md must hold (see services/chaos/checks.py)."""

from __future__ import annotations

import shutil

import pytest

from services.chaos.run import ChaosOptions, run_chaos, table
from services.games import builtin_games

pytestmark = [pytest.mark.slow, pytest.mark.redis]


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server to run a private Redis")
def test_killed_workers_and_a_restarted_redis_lose_and_repeat_nothing() -> None:
    games = builtin_games()
    report = run_chaos(ChaosOptions(matches=max(6, len(games) * 2), workers=2, concurrency=3, kill_every_s=1.0,
                                    restart_redis=True, restart_every_s=4.0, partitions=4, seed=7, timeout_s=30,
                                    deadline_s=240))
    print(table(report))
    assert report.violations == 0, table(report)
    assert report.matches_finished == report.matches
    assert set(report.games) == set(games)
    assert report.worker_kills >= 2 and report.redis_restarts >= 1
    assert report.findings.acked_before_restart > 0, "some acknowledged results were checked over a restart"
