"""The rating maths: the Weng-Lin Bayesian approximation with the Plackett-Luce model (Weng & Lin, "A Bayesian
Approximation Method for Online Ranking", JMLR 12, 2011, algorithm 4), as the ``openskill`` library computes it
with its defaults, the dynamics ``tau`` included (tests/ratings/test_model.py checks values computed by
``openskill`` 6.2.0).

Why this model: it rates a free-for-all of any number of seats in one update (every seat against every other,
through the Plackett-Luce ranking likelihood), handles ties, and keeps an uncertainty ``sigma`` per player that
shrinks as the player plays; it needs no pairwise decomposition (Glicko-2 would) and is free of patents
(TrueSkill is not). It is a few lines of arithmetic, so it is implemented here rather than imported: the ladder
must be computed bit for bit alike by every process that folds it, whatever library versions they have.

Each seat is a team of one. A player's displayed rating is the conservative estimate ``mu - 3 sigma``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

MU = 25.0
SIGMA = MU / 3
BETA = SIGMA / 2
KAPPA = 0.0001  # the floor of the factor that shrinks sigma, so it never reaches 0
TAU = MU / 300  # the dynamics: added to sigma (in quadrature) before each match, so a rating can still move


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float = MU
    sigma: float = SIGMA

    @property
    def ordinal(self) -> float:
        """The conservative rating shown on the ladder: 99.7 % likely to be below the player's true skill."""
        return self.mu - 3 * self.sigma


def rate(ratings: Sequence[Rating], ranks: Sequence[int]) -> list[Rating]:
    """The ratings after one match. ``ranks[i]``: seat i's place, lower is better, equal ranks are ties
    (e.g. ``[0, 1, 1]``: seat 0 won, seats 1 and 2 tied second). At least 2 players."""
    n = len(ratings)
    if n < 2 or len(ranks) != n:
        raise ValueError("a rated match needs 2 or more players, each with a rank")
    ratings = [Rating(r.mu, math.sqrt(r.sigma**2 + TAU**2)) for r in ratings]
    c = math.sqrt(sum(r.sigma**2 + BETA**2 for r in ratings))
    strength = [math.exp(r.mu / c) for r in ratings]
    # sum_q: the strengths of every player placed at q's rank or below; ties: how many share q's rank
    sum_q = [sum(strength[i] for i in range(n) if ranks[i] >= ranks[q]) for q in range(n)]
    ties = [sum(1 for i in range(n) if ranks[i] == ranks[q]) for q in range(n)]
    out = []
    for i, r in enumerate(ratings):
        omega = 0.0
        delta = 0.0
        for q in range(n):
            if ranks[q] > ranks[i]:
                continue
            quotient = strength[i] / sum_q[q]
            omega += ((1 - quotient) if q == i else -quotient) / ties[q]
            delta += quotient * (1 - quotient) / ties[q]
        variance = r.sigma**2
        gamma = r.sigma / c
        mu = r.mu + variance / c * omega
        shrink = max(1 - gamma * variance / c**2 * delta, KAPPA)
        out.append(Rating(mu, r.sigma * math.sqrt(shrink)))
    return out
