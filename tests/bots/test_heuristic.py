"""The heuristic bots beat random ones, in small seeded tournaments through the in-process pipeline."""

from __future__ import annotations

from services.bots.tournament import run_tournament


def test_the_moderne_zeiten_heuristic_beats_random_players() -> None:
    result = run_tournament("moderne-zeiten", ["heuristic", "random", "random", "random"], matches=40, seed=1)
    assert result.rejected == 0
    heuristic, random_ = result.bots["heuristic"], result.bots["random"]
    assert result.beats_chance("heuristic"), result.table()  # the whole 95% interval above 25%
    assert heuristic.average_score > random_.average_score
    assert sum(t.played for t in result.by_seat) == 40 * 4


def test_the_nim_heuristic_beats_a_random_player() -> None:
    result = run_tournament("nim", ["heuristic", "random"], matches=30, seed=2)
    assert result.beats_chance("heuristic"), result.table()
