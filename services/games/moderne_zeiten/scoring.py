"""Final scoring, exactly as the rules file gives it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from services.games.abandon import abandoned_outcome
from services.games.base import Outcome
from services.games.moderne_zeiten.data import INDUSTRIES, N_INDUSTRIES
from services.games.moderne_zeiten.state import UNCLAIMED, Phase, State

MOST_MONEY = 3
MONEY_TIE = 1
INDUSTRY_MAJORITY = 1
ENDER = 1
TABLE_TIE = 1


def _award(counts: Sequence[int], value: int, tie: int) -> list[int]:
    """``value`` to the single greatest count, ``tie`` to each of several; nothing when all are 0."""
    top = max(counts)
    if top <= 0:
        return [0] * len(counts)
    leaders = [i for i, c in enumerate(counts) if c == top]
    points = value if len(leaders) == 1 else tie
    return [points if c == top else 0 for c in counts]


def outcome(s: State) -> Outcome | None:
    """None while the match runs; the final scoring once it is over (no winner when it was abandoned)."""
    if s.phase != Phase.OVER:
        return None
    return abandoned_outcome(s.seats) if s.abandoned else score(s)


def score(s: State) -> Outcome:
    n = s.seats
    board = s.board
    money = _award(s.money, MOST_MONEY, MONEY_TIE)
    industries = [0] * n
    majorities: dict[str, list[int]] = {}
    for i in range(N_INDUSTRIES):
        got = _award([row[i] for row in s.played], INDUSTRY_MAJORITY, INDUSTRY_MAJORITY)
        majorities[INDUSTRIES[i]] = [seat for seat in range(n) if got[seat]]
        industries = [a + b for a, b in zip(industries, got, strict=True)]
    ender = [ENDER if seat == s.ender else 0 for seat in range(n)]
    rows = [[0] * n for _ in board.cities]
    columns = [[0] * n for _ in range(N_INDUSTRIES)]
    for (city, industry), seat in zip(board.track, s.claims, strict=True):
        if seat != UNCLAIMED:
            rows[city][seat] += 1
            columns[industry][seat] += 1
    city_pts = [0] * n
    city_detail: dict[str, list[int]] = {}
    for c, row in enumerate(rows):
        got = _award(row, board.city_points[c], TABLE_TIE)
        city_detail[board.cities[c]] = got
        city_pts = [a + b for a, b in zip(city_pts, got, strict=True)]
    column_pts = [0] * n
    column_detail: dict[str, list[int]] = {}
    for i, column in enumerate(columns):
        got = _award(column, board.industry_points[i], TABLE_TIE)
        column_detail[INDUSTRIES[i]] = got
        column_pts = [a + b for a, b in zip(column_pts, got, strict=True)]
    totals = tuple(
        money[p] + industries[p] + ender[p] + city_pts[p] + column_pts[p] for p in range(n)
    )
    best = max(totals)
    contenders = [p for p in range(n) if totals[p] == best]
    richest = max(s.money[p] for p in contenders)
    winners = tuple(p for p in contenders if s.money[p] == richest)
    detail: dict[str, Any] = {
        "breakdown": [
            {
                "seat": p,
                "money": money[p],
                "industries": industries[p],
                "ender": ender[p],
                "cities": city_pts[p],
                "industry_columns": column_pts[p],
                "total": totals[p],
            }
            for p in range(n)
        ],
        "final_money": list(s.money),
        "majorities": majorities,
        "city_rows": city_detail,
        "industry_columns": column_detail,
        "ended_by": s.ender,
    }
    return Outcome(scores=totals, winners=winners, detail=detail)
