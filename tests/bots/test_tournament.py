"""Tournaments: seat rotation, Wilson intervals, the results tables and the `airship tournament` command."""

from __future__ import annotations

import contextlib
import json
import sys

import pytest

from services import logs
from services.bots.tournament import Tally, run_tournament, seating, wilson
from services.cli import main


@pytest.fixture(autouse=True)
def _logs_untouched(monkeypatch: pytest.MonkeyPatch) -> None:
    """`main` points the logs at the stderr of the moment, which pytest closes after the test: keep the real one."""
    configure = logs.configure

    def on_real_stderr(level: str = "info", json: bool = True) -> None:
        with contextlib.redirect_stderr(sys.__stderr__):
            configure(level, json)

    monkeypatch.setattr(logs, "configure", on_real_stderr)


def test_wilson_interval_matches_known_values() -> None:
    low, high = wilson(70, 100)
    assert low == pytest.approx(0.6041, abs=1e-3) and high == pytest.approx(0.7810, abs=1e-3)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == pytest.approx(1.0)
    assert wilson(0, 0) == (0.0, 1.0)


def test_seats_rotate_so_every_bot_sits_everywhere() -> None:
    lineup = ["a", "b", "c"]
    seen = {(seat, kind) for m in range(3) for seat, kind in enumerate(seating(lineup, m))}
    assert seen == {(s, k) for s in range(3) for k in lineup}


def test_shared_wins_count_a_fraction() -> None:
    t = Tally("x")
    t.add(10, 0.5)
    t.add(4, 0.0)
    assert t.win_rate == 0.25 and t.average_score == 7


def test_a_tournament_counts_every_seat_of_every_match() -> None:
    result = run_tournament("nim", ["random", "random", "heuristic"], matches=9, seed=5)
    assert result.matches == 9
    assert [t.played for t in result.by_seat] == [9, 9, 9]
    assert result.bots["random"].played == 18 and result.bots["heuristic"].played == 9
    assert sum(t.wins for t in result.by_seat) == pytest.approx(9)
    table = result.table()
    assert "win rate" in table and "95% CI" in table and "seat 2" in table


def test_tournament_command_prints_tables(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "--game", "nim", "--matches", "6", "--bots", "heuristic,random", "--seed", "1"]) == 0
    captured = capsys.readouterr()
    assert "| heuristic" in captured.out and "| seat 0" in captured.out
    assert "6/6 matches" in captured.err  # the progress bar


def test_tournament_command_json_and_bad_lineups(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "--game", "nim", "--matches", "2", "--bots", "random", "--players", "3",
                 "--json", "--quiet"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["seats"] == 3 and data["matches"] == 2
    assert main(["tournament", "--game", "nim", "--matches", "2", "--bots", "random,random,random,random,random",
                 "--quiet"]) == 2
    assert main(["tournament", "--game", "nim", "--matches", "2", "--bots", "clever,random", "--quiet"]) == 2
    assert "unknown bot 'clever'" in capsys.readouterr().err
