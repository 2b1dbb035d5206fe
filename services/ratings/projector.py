"""``airship ratings projector``: keeps the ladder up to date from the partition feeds.

It reads the feeds in its own consumer group ``ratings`` (the group's position and pending entries are its
checkpoint, as for the view projector). It needs no event's content: a batch tells it which matches moved, and
one round trip asks which of them are finished. Each finished match with 2 or more linked players is read (its
links and its log), recorded once (HSETNX on the match id) and its game's ladder published again; then the
batch is acknowledged. A projector killed anywhere in between leaves its entries pending: whoever claims them
finds the match recorded and publishes the game again, which writes the same ladder.

Matches that finish without a feed event (abandoned by their players) or whose events were trimmed from the
feed before it read them are found by a sweep of the partitions' finished sets every ``sweep_every_s``. A
match archived before any projector saw it (one down for longer than the archive's grace) is rated by the next
``airship ratings rebuild``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

import redis

from schemas.codec import unpack_obj
from services import metrics
from services.keys import RATINGS_GROUP, Keys
from services.logs import error_text, get_logger
from services.pipeline.backoff import Backoff
from services.pipeline.ports import Delivery
from services.pipeline.redis_streams import GroupStreams, text
from services.ratings.matches import from_redis
from services.ratings.store import Conflict, RatingsStore, finished_ids, rated_candidates

log = get_logger("ratings")
LAG_LABEL = "feed-ratings"  # the `stream` label of the lag and pending gauges (the view projector's is "feed")


class RatingsProjector:
    def __init__(self, r: redis.Redis, keys: Keys, consumer: str, batch_size: int = 200, block_ms: int = 1000,
                 claim_idle_ms: int = 30_000, claim_every_s: float = 5.0, sweep_every_s: float = 60.0) -> None:
        self.r = r
        self.keys = keys
        self.consumer = consumer
        self.batch_size = batch_size
        self.block_ms = block_ms
        self.claim_idle_ms = claim_idle_ms
        self.claim_every_s = claim_every_s
        self.sweep_every_s = sweep_every_s
        self.store = RatingsStore(r, keys)
        self.feeds = GroupStreams(r, [keys.feed(p) for p in range(keys.partitions)], RATINGS_GROUP)
        self.stopping = threading.Event()
        self.heartbeat: Callable[[], None] = lambda: None

    def run(self) -> None:
        log.info("ratings projector started", consumer=self.consumer)
        last_claim = last_sweep = last_report = 0.0
        backoff = Backoff()
        while not self.stopping.is_set():
            now = time.monotonic()
            if now - last_report >= self.claim_every_s:
                last_report = now
                self.report()
            try:
                if now - last_sweep >= self.sweep_every_s:
                    self.sweep()
                    last_sweep = now
                claim = now - last_claim >= self.claim_every_s
                if claim:
                    last_claim = now
                self.run_once(claim=claim)
            except (redis.RedisError, Conflict) as e:
                metrics.RATINGS_ERRORS.inc()
                log.warning("ratings projector loop failed; retrying", error=error_text(e))
                self.stopping.wait(backoff.next_s())
            else:
                backoff.reset()
            self.heartbeat()
        log.info("ratings projector stopped", consumer=self.consumer)

    def stop(self) -> None:
        self.stopping.set()

    def report(self) -> None:
        """The gauges: the group's lag and pending entries per feed partition (``stream="feed-ratings"``), and
        the last rebuild's duration and time (recorded in Redis by ``airship ratings rebuild``)."""
        try:
            for partition, n in self.feeds.lag().items():
                metrics.STREAM_LAG.labels(LAG_LABEL, str(partition)).set(n)
            for partition, p in self.feeds.pending().items():
                metrics.STREAM_PENDING.labels(LAG_LABEL, str(partition)).set(p.count)
                metrics.STREAM_OLDEST_PENDING.labels(LAG_LABEL, str(partition)).set(p.oldest_s)
            last = self.store.last_rebuild()
            metrics.RATINGS_REBUILD_SECONDS.set(last.get("seconds", 0.0))
            metrics.RATINGS_REBUILD_TIMESTAMP.set(last.get("at_ms", 0.0) / 1000)
        except Exception as e:  # a report is never worth stopping the loop for
            log.warning("ratings metrics report failed", error=error_text(e))

    def leave(self) -> None:
        """Leave the consumer group on exit (where this consumer holds nothing pending)."""
        try:
            self.feeds.forget(self.consumer)
        except redis.RedisError as e:
            log.warning("could not leave the ratings group", consumer=self.consumer, error=error_text(e))

    def run_once(self, block_ms: int | None = None, claim: bool = False) -> int:
        deliveries: list[Delivery] = []
        if claim:
            deliveries = self.feeds.claim(self.consumer, self.claim_idle_ms, self.batch_size)
        if not deliveries:
            deliveries = self.feeds.read(self.consumer, self.batch_size,
                                         self.block_ms if block_ms is None else block_ms)
        if deliveries:
            self.rate(sorted({m for m in map(_match_id, deliveries) if m}))
            self.feeds.ack_many(deliveries)
        return len(deliveries)

    def rate(self, match_ids: Sequence[str]) -> list[str]:
        """Rate those of ``match_ids`` that are finished and linked (each once); publish their games again.
        Returns the games published."""
        pipe = self.r.pipeline(transaction=False)
        for match_id in match_ids:
            pipe.hget(self.keys.meta(match_id), "status")
        finished = [m for m, s in zip(match_ids, pipe.execute(), strict=True) if s == b"finished"]
        by_partition: dict[int, list[str]] = {}
        for match_id in finished:
            by_partition.setdefault(self.keys.partition(match_id), []).append(match_id)
        games: set[str] = set()
        for partition, ids in by_partition.items():
            for match_id in rated_candidates(self.r, self.keys, partition, ids):
                rated = from_redis(self.r, self.keys, match_id)
                if rated is not None:
                    if self.store.record(rated):
                        metrics.RATINGS_MATCHES_RATED.labels(rated.game).inc()
                        log.info("match rated", match_id=match_id, game=rated.game, players=len(rated.placings))
                    games.add(rated.game)  # published again even if recorded before (a crash in between)
        for game in sorted(games):
            self.store.publish(game)
        return sorted(games)

    def sweep(self) -> int:
        """Rate the finished matches in Redis that no feed entry brought (and publish every game once, which
        also finishes a publish a killed projector left undone). Returns how many matches were newly rated."""
        before = {g: len(self.store.matches(g)) for g in self.store.games()}
        games: set[str] = set(before)
        for partition, ids in finished_ids(self.r, self.keys):
            candidates = rated_candidates(self.r, self.keys, partition, ids)
            for match_id in candidates:
                rated = from_redis(self.r, self.keys, match_id)
                if rated is not None and self.store.record(rated):
                    metrics.RATINGS_MATCHES_RATED.labels(rated.game).inc()
                    games.add(rated.game)
        for game in sorted(games):
            self.store.publish(game)
        return sum(len(self.store.matches(g)) - before.get(g, 0) for g in games)


def _match_id(delivery: Delivery) -> str | None:
    """The match a feed entry belongs to (a packed EventEnvelope); None for an entry that is not one, which the
    view projector dead-letters: the sweep finds its match anyway."""
    try:
        obj = unpack_obj(delivery.data)
    except ValueError:
        return None
    match_id = obj.get("match_id") if isinstance(obj, dict) else None
    return text(match_id) if isinstance(match_id, (str, bytes)) else None
