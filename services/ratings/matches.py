"""A finished match as the ladder sees it, from Redis or from its archive file: the same
:class:`~services.ratings.ladder.RatedMatch` either way (the links come from the seat-players hash in Redis, or
from the archive file's header, which the archiver copies them into; the outcome from folding the game's
``evolve`` over the log)."""

from __future__ import annotations

from collections.abc import Sequence

import redis

from schemas.envelopes import EventEnvelope
from services.games.base import Outcome
from services.games.clock import match_game
from services.keys import Keys
from services.pipeline.states import to_event
from services.ratings.ladder import RatedMatch, linked_players, rated_match
from services.ratings.store import match_links, read_log, read_meta
from services.replay.files import MatchLog


def outcome_of(game_name: str, events: Sequence[EventEnvelope]) -> Outcome | None:
    game = match_game(game_name)  # the match layer: a forfeit (#29) is an outcome too
    state = game.initial()
    for envelope in events:
        state = game.evolve(state, to_event(envelope))
    return game.outcome(state)


def from_redis(r: redis.Redis, keys: Keys, match_id: str) -> RatedMatch | None:
    """The finished match ``match_id`` in Redis; None when it is not rated (or not there, or not finished)."""
    meta = read_meta(r, keys, match_id)
    if meta is None or meta.status != "finished":
        return None
    links, created = match_links(r, keys, match_id, meta.seats)
    if not linked_players(links):
        return None
    outcome = outcome_of(meta.game, read_log(r, keys, match_id, meta.game))
    return rated_match(match_id, meta.game, created, links, outcome)


def from_archive(r: redis.Redis, keys: Keys, log: MatchLog) -> RatedMatch | None:
    """An archived match (header and log from its file); None when it is not rated. The links and the creation
    time come from the file's header (``players``, ``created_ms``: the archiver writes them); a file from before
    headers carried them falls back to the partition's seat-players hash in Redis."""
    if log.meta is None:
        return None
    if log.meta.players:
        links, created = dict(log.meta.players), log.meta.created_ms or 0
    else:
        links, created = match_links(r, keys, log.meta.match_id, log.meta.seats)
    if not linked_players(links):
        return None
    return rated_match(log.meta.match_id, log.meta.game, created, links, outcome_of(log.meta.game, log.events))
