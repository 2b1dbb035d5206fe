"""Finished matches played through the in-process pipeline, for the replay tests."""

from __future__ import annotations

from services.bots.base import RandomBot
from services.bots.runner import play_match
from services.games import GAMES
from services.pipeline.inprocess import InProcess
from services.replay.files import MatchLog
from services.replay.transfer import load_match


def finished_match(game: str = "nim", seed: int = 7, match_id: str = "m1",
                   seats: int | None = None) -> tuple[InProcess, MatchLog]:
    """A complete match among random bots; returns the pipeline (with the projector's views) and its log."""
    embedded = InProcess(partitions=2)
    seats = seats or max(2, GAMES[game].min_seats)
    play_match(embedded.client(), game, seats, [RandomBot(seed * 10 + s) for s in range(seats)], seed=seed,
               match_id=match_id)
    return embedded, load_match(embedded.backend.store, match_id)


def tampered(log: MatchLog, version: int, **body: object) -> MatchLog:
    """``log`` with the body of the event at ``version`` changed."""
    events = list(log.events)
    old = events[version - 1]
    events[version - 1] = old.model_copy(update={"body": {**old.body, **body}})
    return MatchLog(log.meta, events)
