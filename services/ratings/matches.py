"""A finished match as the ladder sees it: the read-model kit's :class:`~services.readmodels.sources.FinishedMatch`
(from Redis or from its archive file: the same either way) turned into a
:class:`~services.ratings.ladder.RatedMatch` (the outcome from folding the game's ``evolve`` over the log)."""

from __future__ import annotations

from collections.abc import Sequence

import redis

from schemas.envelopes import EventEnvelope
from services.games.base import Outcome
from services.games.clock import match_game
from services.keys import Keys
from services.pipeline.states import to_event
from services.ratings.ladder import RatedMatch, linked_players, rated_match
from services.readmodels.sources import FinishedMatch, from_redis


def outcome_of(game_name: str, events: Sequence[EventEnvelope]) -> Outcome | None:
    game = match_game(game_name)  # the match layer: a forfeit (#29) is an outcome too
    state = game.initial()
    for envelope in events:
        state = game.evolve(state, to_event(envelope))
    return game.outcome(state)


def to_rated(match: FinishedMatch) -> RatedMatch | None:
    """The match as the ladder records it; None when it is not rated (fewer than 2 linked players, no outcome)."""
    if not linked_players(match.links):
        return None
    return rated_match(match.meta.match_id, match.meta.game, match.created_ms, match.links,
                       outcome_of(match.meta.game, match.events))


def rated(r: redis.Redis, keys: Keys, match_id: str) -> RatedMatch | None:
    """The finished match ``match_id`` in Redis, rated; None when it is not rated (or not there, or not finished)."""
    found = from_redis(r, keys, match_id)
    return to_rated(found) if found is not None else None
