"""The loop every read model runs over the partition feeds: :class:`FeedConsumer`.

The model gets its own consumer group on the feeds (its place and its pending entries are its checkpoint; another
model's lag never holds it back). Each pass claims, every ``claim_every_s``, what a consumer that died left pending
for ``claim_idle_ms``, else reads new entries; hands the model the matches the batch moved; and acknowledges the
batch only after the model applied it. A consumer killed anywhere in between leaves the entries pending: the next
claim hands the same matches to the model again, so a model's ``apply`` must be idempotent (record its input by
match id, derive the rest). Every ``sweep_every_s`` the model's ``sweep`` runs (the feed is trimmed: a model that
must see every match scans the source of truth now and then). A failing pass (Redis away, the model's own
``retry_on`` errors) is counted, logged and retried after a backoff; anything else stops the loop, loudly.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Protocol

import redis
from prometheus_client import Counter

from services import metrics
from services.keys import Keys
from services.logs import error_text, get_logger
from services.pipeline.backoff import Backoff
from services.pipeline.ports import Delivery
from services.pipeline.redis_streams import GroupStreams
from services.readmodels.sources import moved

log = get_logger("readmodels")


class ReadModel(Protocol):
    """What a read model gives the kit."""

    name: str  # its consumer group on the feeds, and the ``stream="feed-<name>"`` label of its gauges
    errors: Counter  # failed passes (retried), e.g. airship_<name>_errors_total
    retry_on: tuple[type[Exception], ...]  # its own errors worth a retry (Redis errors always are)

    def apply(self, match_ids: Sequence[str]) -> None:
        """Take in what ``match_ids`` (moved by one batch of feed entries) mean for the model; idempotent."""

    def sweep(self) -> None:
        """Scan the source of truth for what no feed entry brought (and finish what a killed consumer left)."""

    def report(self) -> None:
        """Set the model's own gauges (called every ``claim_every_s``; the kit sets the group's lag)."""


class FeedConsumer:
    def __init__(self, r: redis.Redis, keys: Keys, model: ReadModel, consumer: str, batch_size: int = 200,
                 block_ms: int = 1000, claim_idle_ms: int = 30_000, claim_every_s: float = 5.0,
                 sweep_every_s: float = 60.0) -> None:
        self.model = model
        self.consumer = consumer
        self.batch_size = batch_size
        self.block_ms = block_ms
        self.claim_idle_ms = claim_idle_ms
        self.claim_every_s = claim_every_s
        self.sweep_every_s = sweep_every_s
        self.feeds = GroupStreams(r, [keys.feed(p) for p in range(keys.partitions)], model.name)
        self.label = f"feed-{model.name}"
        self.retry_on: tuple[type[Exception], ...] = (redis.RedisError, *model.retry_on)
        self.stopping = threading.Event()
        self.heartbeat: Callable[[], None] = lambda: None

    def run(self) -> None:
        log.info("read model started", model=self.model.name, consumer=self.consumer)
        last_claim = last_sweep = last_report = 0.0
        backoff = Backoff()
        while not self.stopping.is_set():
            now = time.monotonic()
            if now - last_report >= self.claim_every_s:
                last_report = now
                self.report()
            try:
                if now - last_sweep >= self.sweep_every_s:
                    self.model.sweep()
                    last_sweep = now
                claim = now - last_claim >= self.claim_every_s
                if claim:
                    last_claim = now
                self.run_once(claim=claim)
            except self.retry_on as e:
                self.model.errors.inc()
                log.warning("read model pass failed; retrying", model=self.model.name, error=error_text(e))
                self.stopping.wait(backoff.next_s())
            else:
                backoff.reset()
            self.heartbeat()
        log.info("read model stopped", model=self.model.name, consumer=self.consumer)

    def stop(self) -> None:
        self.stopping.set()

    def run_once(self, block_ms: int | None = None, claim: bool = False) -> int:
        """One pass: claim (when ``claim``) or read a batch, apply it, acknowledge it. Returns the entries."""
        deliveries: list[Delivery] = []
        if claim:
            deliveries = self.feeds.claim(self.consumer, self.claim_idle_ms, self.batch_size)
        if not deliveries:
            deliveries = self.feeds.read(self.consumer, self.batch_size,
                                         self.block_ms if block_ms is None else block_ms)
        if deliveries:
            self.model.apply(moved(deliveries))
            self.feeds.ack_many(deliveries)
        return len(deliveries)

    def report(self) -> None:
        """The group's lag and pending entries per feed partition, then the model's own gauges."""
        try:
            for partition, n in self.feeds.lag().items():
                metrics.STREAM_LAG.labels(self.label, str(partition)).set(n)
            for partition, p in self.feeds.pending().items():
                metrics.STREAM_PENDING.labels(self.label, str(partition)).set(p.count)
                metrics.STREAM_OLDEST_PENDING.labels(self.label, str(partition)).set(p.oldest_s)
            self.model.report()
        except Exception as e:  # a report is never worth stopping the loop for
            log.warning("read model metrics report failed", model=self.model.name, error=error_text(e))

    def leave(self) -> None:
        """Leave the consumer group on exit (where this consumer holds nothing pending)."""
        try:
            self.feeds.forget(self.consumer)
        except redis.RedisError as e:
            log.warning("could not leave the group", model=self.model.name, consumer=self.consumer,
                        error=error_text(e))
