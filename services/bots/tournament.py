"""Tournaments: many matches among bots, seats rotated, with win rates and their confidence intervals.

Each match goes through the whole pipeline (:func:`services.bots.runner.play_match`): in-process by
default, a fresh embedded backend per match; through a gateway when a client factory for it is given
(the gateway chooses the match seeds then, so such a tournament is not reproducible). The lineup names
one bot per seat; match ``m`` rotates it by ``m`` seats, so every bot sits in every seat equally often
when the number of matches is a multiple of the number of seats.

Win rates count a shared win as ``1/k`` to each of the ``k`` winners; the interval is Wilson's score
interval. Under pure chance every seat wins ``1/seats`` of its matches (the "chance" line).
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from services.bots.plugins import make_bot
from services.bots.runner import StatusLine, play_match
from services.client.protocol import GameClient
from services.pipeline.inprocess import InProcess

ClientFactory = Callable[[], GameClient]
OnMatch = Callable[[int, int, float], None]

Z_95 = 1.959964


def wilson(wins: float, n: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson's score interval for a proportion ``wins / n`` (``wins`` may be fractional)."""
    if n <= 0:
        return 0.0, 1.0
    p = wins / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Tally:
    """Results of one bot kind (or one seat position) over the matches it took part in."""

    name: str
    played: int = 0
    wins: float = 0.0
    points: int = 0

    def add(self, score: int, win_share: float) -> None:
        self.played += 1
        self.points += score
        self.wins += win_share

    @property
    def win_rate(self) -> float:
        return self.wins / self.played if self.played else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.played)

    @property
    def average_score(self) -> float:
        return self.points / self.played if self.played else 0.0


@dataclass
class TournamentResult:
    game: str
    seats: int
    lineup: list[str]
    matches: int = 0
    seconds: float = 0.0
    commands: int = 0
    rejected: int = 0
    bots: dict[str, Tally] = field(default_factory=dict)
    by_seat: list[Tally] = field(default_factory=list)

    @property
    def chance(self) -> float:
        return 1 / self.seats

    def beats_chance(self, bot: str) -> bool:
        """Whether the bot's whole interval lies above the chance win rate."""
        return self.bots[bot].interval[0] > self.chance

    def as_dict(self) -> dict[str, Any]:
        def row(t: Tally) -> dict[str, Any]:
            low, high = t.interval
            return {"name": t.name, "played": t.played, "wins": t.wins, "win_rate": t.win_rate,
                    "ci95": [low, high], "average_score": t.average_score}

        return {"game": self.game, "seats": self.seats, "lineup": self.lineup, "matches": self.matches,
                "seconds": self.seconds, "commands": self.commands, "rejected": self.rejected,
                "chance": self.chance, "bots": [row(t) for t in self.bots.values()],
                "seats_table": [row(t) for t in self.by_seat]}

    def table(self) -> str:
        lines = [
            f"{self.game}: {self.matches} matches, {self.seats} seats, lineup {','.join(self.lineup)} "
            f"(rotated), {self.seconds:.1f}s, {self.commands} commands, {self.rejected} rejected",
            "",
            f"| {'bot':<14} | seats played | wins   | win rate | 95% CI           | avg score |",
            f"|{'-' * 16}|--------------|--------|----------|------------------|-----------|",
        ]
        lines += [self._row(t) for t in sorted(self.bots.values(), key=lambda t: -t.win_rate)]
        lines += [
            f"chance: {self.chance:.1%} per seat",
            "",
            f"| {'seat':<14} | matches      | wins   | win rate | 95% CI           | avg score |",
            f"|{'-' * 16}|--------------|--------|----------|------------------|-----------|",
        ]
        lines += [self._row(t) for t in self.by_seat]
        return "\n".join(lines)

    @staticmethod
    def _row(t: Tally) -> str:
        low, high = t.interval
        return (f"| {t.name:<14} | {t.played:>12} | {t.wins:>6.1f} | {t.win_rate:>7.1%}  | "
                f"[{low:>6.1%}, {high:>6.1%}] | {t.average_score:>9.2f} |")


def seating(lineup: Sequence[str], match: int) -> list[str]:
    """The bot kind of each seat in match ``match``: the lineup rotated by ``match`` seats."""
    n = len(lineup)
    return [lineup[(seat + match) % n] for seat in range(n)]


def run_tournament(
    game: str,
    lineup: Sequence[str],
    matches: int,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    client_factory: ClientFactory | None = None,
    on_match: OnMatch | None = None,
) -> TournamentResult:
    """Play ``matches`` matches of ``game`` with one bot per seat as ``lineup`` names them (rotated)."""
    seats = len(lineup)
    result = TournamentResult(game, seats, list(lineup), by_seat=[Tally(f"seat {s}") for s in range(seats)])
    for kind in lineup:
        result.bots.setdefault(kind, Tally(kind))
    started = time.monotonic()
    for m in range(matches):
        kinds = seating(lineup, m)
        bots = [make_bot(kind, game, seed * 1_000_003 + m * 31 + s) for s, kind in enumerate(kinds)]
        client = client_factory() if client_factory else InProcess(partitions=1).client()
        report = play_match(client, game, seats, bots, options,
                            seed=None if client_factory else seed * 1_000_003 + m,
                            match_id=None if client_factory else f"tournament-{seed}-{m}")
        winners = report.outcome.get("winners", [])
        scores = report.outcome.get("scores", [0] * seats)
        for s, kind in enumerate(kinds):
            share = 1 / len(winners) if s in winners else 0.0
            result.bots[kind].add(scores[s], share)
            result.by_seat[s].add(scores[s], share)
        result.matches += 1
        result.commands += report.commands
        result.rejected += report.rejected
        result.seconds = time.monotonic() - started
        if on_match:
            on_match(m + 1, matches, result.seconds)
    return result


class ProgressBar(StatusLine):
    """``[#####.....] 37/200 matches, 12s, about 53s left`` on stderr; on a non-terminal a line every
    few seconds."""

    def __init__(self, label: str, out: TextIO | None = None, width: int = 30, every_s: float = 5.0) -> None:
        self.label = label
        self.out = out or sys.stderr
        self.width = width
        self.tty = self.out.isatty()
        self.every_s = 0.0 if self.tty else every_s
        self._last = -math.inf

    def __call__(self, done: int, total: int, elapsed_s: float) -> None:
        now = time.monotonic()
        if now - self._last < self.every_s and done < total:
            return
        self._last = now
        filled = self.width * done // max(total, 1)
        left = elapsed_s / done * (total - done) if done else 0.0
        text = (f"{self.label} [{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} matches, "
                f"{elapsed_s:.0f}s, about {left:.0f}s left")
        self.show(text)
