"""``airship ratings projector``: keeps the ladder up to date from the partition feeds, on the read-model kit.

:class:`RatingsModel` is the model; :class:`~services.readmodels.consumer.FeedConsumer` runs it in the consumer
group ``ratings`` (the group's position and pending entries are its checkpoint, as for the view projector). It
needs no event's content: a batch tells it which matches moved, and one round trip asks which of them are
finished. Each finished match with 2 or more linked players is read (its links and its log), recorded once (HSETNX
on the match id) and its game's ladder published again; then the kit acknowledges the batch. A projector killed
anywhere in between leaves its entries pending: whoever claims them finds the match recorded and publishes the
game again, which writes the same ladder.

Matches that finish without a feed event (abandoned by their players) or whose events were trimmed from the
feed before it read them are found by the sweep of the partitions' finished sets every ``sweep_every_s``. A
match archived before any projector saw it (one down for longer than the archive's grace) is rated by the next
``airship ratings rebuild``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import redis

from services import metrics
from services.keys import RATINGS_GROUP, Keys
from services.logs import get_logger
from services.ratings.matches import rated
from services.ratings.store import Conflict, RatingsStore
from services.readmodels.consumer import FeedConsumer
from services.readmodels.sources import finished_among, finished_ids, linked_any

log = get_logger("ratings")


class RatingsModel:
    name = RATINGS_GROUP
    errors = metrics.RATINGS_ERRORS
    retry_on: tuple[type[Exception], ...] = (Conflict,)

    def __init__(self, r: redis.Redis, keys: Keys) -> None:
        self.r = r
        self.keys = keys
        self.store = RatingsStore(r, keys)

    def apply(self, match_ids: Sequence[str]) -> None:
        self.rate(match_ids)

    def rate(self, match_ids: Sequence[str]) -> list[str]:
        """Rate those of ``match_ids`` that are finished and linked (each once); publish their games again.
        Returns the games published."""
        by_partition: dict[int, list[str]] = {}
        for match_id in finished_among(self.r, self.keys, sorted(set(match_ids))):
            by_partition.setdefault(self.keys.partition(match_id), []).append(match_id)
        games: set[str] = set()
        for partition, ids in by_partition.items():
            for match_id in linked_any(self.r, self.keys, partition, ids):
                found = self._record(match_id)
                if found is not None:
                    games.add(found)  # published again even if recorded before (a crash in between)
        for game in sorted(games):
            self.store.publish(game)
        return sorted(games)

    def sweep(self) -> None:
        """Rate the finished matches in Redis that no feed entry brought, and publish every game once (which also
        finishes a publish a killed projector left undone)."""
        games = set(self.store.games())
        for partition, ids in finished_ids(self.r, self.keys):
            for match_id in linked_any(self.r, self.keys, partition, ids):
                found = self._record(match_id)
                if found is not None:
                    games.add(found)
        for game in sorted(games):
            self.store.publish(game)

    def report(self) -> None:
        """The last rebuild's duration and time (recorded in Redis by ``airship ratings rebuild``)."""
        last = self.store.last_rebuild()
        metrics.RATINGS_REBUILD_SECONDS.set(last.get("seconds", 0.0))
        metrics.RATINGS_REBUILD_TIMESTAMP.set(last.get("at_ms", 0.0) / 1000)

    def _record(self, match_id: str) -> str | None:
        """Record the match if it is rated; its game (None: not rated)."""
        match = rated(self.r, self.keys, match_id)
        if match is None:
            return None
        if self.store.record(match):
            metrics.RATINGS_MATCHES_RATED.labels(match.game).inc()
            log.info("match rated", match_id=match_id, game=match.game, players=len(match.placings))
        return match.game


def ratings_projector(r: redis.Redis, keys: Keys, consumer: str, **loop: Any) -> FeedConsumer:
    """The ratings model in the kit's feed loop (``loop``: FeedConsumer's batch, block, claim and sweep settings)."""
    return FeedConsumer(r, keys, RatingsModel(r, keys), consumer, **loop)
