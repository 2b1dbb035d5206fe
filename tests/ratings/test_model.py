"""The rating maths against values computed by the ``openskill`` library (6.2.0, PlackettLuce with its
defaults), and the ladder's fold: ranks from outcomes, ties, order, exactly-once by match id."""

from __future__ import annotations

import pytest

from services.games.abandon import abandoned_outcome
from services.games.base import Outcome
from services.ratings.ladder import RatedMatch, fold, rated_match
from services.ratings.model import Rating, rate

CASES = [  # (mu, sigma) per seat, ranks -> (mu, sigma) after, from openskill.models.PlackettLuce().rate
    ([(25, 25 / 3)] * 2, [0, 1], [(27.635389493140497, 8.06590141354368), (22.364610506859503, 8.06590141354368)]),
    ([(25, 25 / 3)] * 4, [0, 1, 1, 2],
     [(27.795252672501135, 8.263571791259416), (24.689416369722096, 8.17961798837266),
      (24.689416369722096, 8.17961798837266), (22.825914588054673, 8.17961798837266)]),
    ([(30, 5), (22, 7), (25, 25 / 3), (18, 2), (27, 6), (25, 1)], [2, 0, 1, 5, 3, 4],
     [(30.27729673669881, 4.963133908282781), (24.47937172353052, 6.970872909899731),
      (27.605884628155167, 8.186670245543585), (17.755535420476455, 2.000480046138439),
      (26.82233334759477, 5.898847033784715), (24.966511473344823, 1.003368034478952)]),
    ([(29, 3), (21, 4), (25, 8)], [0, 0, 0],
     [(28.91181608766511, 2.9951625886508886), (21.140209791092882, 3.9873385153987337),
      (25.066013421480918, 7.729435882338299)]),
]


@pytest.mark.parametrize(("before", "ranks", "after"), CASES)
def test_matches_openskill(before: list[tuple[float, float]], ranks: list[int],
                           after: list[tuple[float, float]]) -> None:
    got = rate([Rating(mu, sigma) for mu, sigma in before], ranks)
    for rating, (mu, sigma) in zip(got, after, strict=True):
        assert rating.mu == pytest.approx(mu, abs=1e-9)
        assert rating.sigma == pytest.approx(sigma, abs=1e-9)


def test_needs_two_players() -> None:
    with pytest.raises(ValueError):
        rate([Rating()], [0])


def test_ranks_from_outcome_winners_then_score_and_anonymous_seats_left_out() -> None:
    outcome = Outcome(scores=(5, 9, 9, 1), winners=(0,))  # seat 0 won on a tie-break though it scored less
    rated = rated_match("m1", "g", 7, {0: "ann", 1: "bob", 3: "cy"}, outcome)  # seat 2 anonymous
    assert rated is not None
    assert [(p.seat, p.player, p.rank, p.won) for p in rated.placings] == [
        (0, "ann", 0, True), (1, "bob", 1, False), (3, "cy", 2, False)]
    tie = rated_match("m2", "g", 7, {0: "ann", 1: "bob"}, Outcome(scores=(4, 4), winners=(0, 1)))
    assert tie is not None and [p.rank for p in tie.placings] == [0, 0]


def test_rated_only_with_two_linked_players() -> None:
    outcome = Outcome(scores=(1, 2), winners=(1,))
    assert rated_match("m", "g", 1, {0: "ann"}, outcome) is None
    assert rated_match("m", "g", 1, {}, outcome) is None
    unfinished = rated_match("m", "g", 1, {0: "ann", 1: "bob"}, None)
    abandoned = rated_match("m", "g", 1, {0: "ann", 1: "bob"}, abandoned_outcome(2))  # ended by MatchAbandoned
    for match in (unfinished, abandoned):
        assert match is not None and match.placings == ()
        assert fold([match]).standings == []


def test_fold_is_independent_of_the_order_matches_arrive_in() -> None:
    matches = [rated_match(f"m{i}", "g", 1000 - i % 3, {0: "ann", 1: "bob", 2: "cy"},
                           Outcome(scores=(i % 3, (i + 1) % 3, (i + 2) % 3), winners=()))
               for i in range(12)]
    assert all(m is not None for m in matches)
    forward = fold(m for m in matches if m)
    backward = fold(m for m in reversed(matches) if m)
    assert forward == backward
    assert [row["games"] for row in forward.standings] == [12, 12, 12]
    round_trip = [RatedMatch.from_obj(m.to_obj()) for m in matches if m]
    assert fold(round_trip) == forward


def test_the_winner_gains() -> None:
    matches = [rated_match(f"m{i}", "g", i, {0: "strong", 1: "weak"}, Outcome((3, 1), (0,))) for i in range(5)]
    ladder = fold(m for m in matches if m is not None)
    first, second = ladder.standings
    assert (first["player"], first["wins"], second["wins"]) == ("strong", 5, 0)
    assert first["rating"] > 0 > second["rating"]
    assert [row["after"] > row["before"] for row in ladder.history["strong"]] == [True] * 5
