"""What a finished match contributes to the ladder, and the ladder itself: a pure function of the set of a
game's rated matches.

A match is **rated** when it finished with an outcome (not abandoned: MatchAbandoned's outcome places nobody) and
at least 2 of its seats were joined by registered players (distinct: a player holds one seat per match). Seats
joined anonymously are left out: the linked players are ranked among themselves, in the order the outcome places
them (the winners first, then by score, equal places tying).

Ratings depend on the order matches are applied in. The ladder applies a game's rated matches in one
canonical order, ``(created_ms, match_id)``: when the match was created (recorded with the player links, so
it outlives the match's archiving) and its id to break ties. Both come from durable data, never from when a
process happened to see the match, so the live projector and ``airship ratings rebuild`` fold the same
sequence and get the same numbers, bit for bit. A match that finishes after a later-created one was rated
is folded in at its place: the ladder is refolded from the set (:func:`fold`), which is what makes it
independent of delivery order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from services.games.abandon import is_abandoned
from services.games.base import Outcome
from services.ratings.model import Rating, rate


@dataclass(frozen=True, slots=True)
class Placing:
    """One linked seat of a rated match."""

    seat: int
    player: str
    rank: int  # 0 = first; equal ranks tie
    score: int
    won: bool


@dataclass(frozen=True, slots=True)
class RatedMatch:
    """A finished match with 2 or more linked players; ``placings`` empty when it was abandoned (or ended
    without an outcome): recorded, so it is looked at once, but it moves no rating."""

    match_id: str
    game: str
    created_ms: int
    placings: tuple[Placing, ...] = ()

    @property
    def order(self) -> tuple[int, str]:
        return self.created_ms, self.match_id

    def to_obj(self) -> dict[str, Any]:
        return {"m": self.match_id, "g": self.game, "c": self.created_ms,
                "p": [[p.seat, p.player, p.rank, p.score, int(p.won)] for p in self.placings]}

    @classmethod
    def from_obj(cls, obj: Mapping[str, Any]) -> RatedMatch:
        placings = tuple(Placing(int(s), str(n), int(r), int(sc), bool(w)) for s, n, r, sc, w in obj["p"])
        return cls(str(obj["m"]), str(obj["g"]), int(obj["c"]), placings)


def linked_players(links: Mapping[int, str]) -> bool:
    """Whether these seat -> player links make a match rated (once it has an outcome)."""
    return len(set(links.values())) >= 2


def rated_match(match_id: str, game: str, created_ms: int, links: Mapping[int, str],
                outcome: Outcome | None) -> RatedMatch | None:
    """What a finished match contributes: None when fewer than 2 seats are linked players (not rated)."""
    if not linked_players(links):
        return None
    if outcome is None or is_abandoned(outcome):
        return RatedMatch(match_id, game, created_ms)
    seats = sorted(links)
    winners = set(outcome.winners)

    def key(seat: int) -> tuple[int, int]:
        return (0 if seat in winners else 1, -outcome.scores[seat])

    places = sorted({key(s) for s in seats})
    placings = tuple(Placing(s, links[s], places.index(key(s)), outcome.scores[s], s in winners) for s in seats)
    return RatedMatch(match_id, game, created_ms, placings)


@dataclass
class Standing:
    player: str
    rating: Rating = field(default_factory=Rating)
    games: int = 0
    wins: int = 0
    last_match: str = ""

    def to_obj(self) -> dict[str, Any]:
        return {"player": self.player, "rating": self.rating.ordinal, "mu": self.rating.mu,
                "sigma": self.rating.sigma, "games": self.games, "wins": self.wins, "last_match": self.last_match}


@dataclass
class Ladder:
    """A game's ladder: the standings (best first) and each player's history (in the canonical order)."""

    standings: list[dict[str, Any]]
    history: dict[str, list[dict[str, Any]]]


def fold(matches: Iterable[RatedMatch]) -> Ladder:
    """The ladder of a set of rated matches (of one game), applied in the canonical order."""
    players: dict[str, Standing] = {}
    history: dict[str, list[dict[str, Any]]] = {}
    for match in sorted(matches, key=lambda m: m.order):
        if not match.placings:
            continue
        standings = [players.setdefault(p.player, Standing(p.player)) for p in match.placings]
        after = rate([s.rating for s in standings], [p.rank for p in match.placings])
        opponents = [p.player for p in match.placings]
        for placing, standing, new in zip(match.placings, standings, after, strict=True):
            history.setdefault(placing.player, []).append({
                "match_id": match.match_id, "seat": placing.seat, "rank": placing.rank, "score": placing.score,
                "won": placing.won, "players": opponents, "before": standing.rating.ordinal,
                "after": new.ordinal, "mu": new.mu, "sigma": new.sigma})
            standing.rating = new
            standing.games += 1
            standing.wins += int(placing.won)
            standing.last_match = match.match_id
    ranked = sorted(players.values(), key=lambda s: (-s.rating.ordinal, s.player))
    return Ladder([s.to_obj() for s in ranked], history)
