"""The read-model kit (services/readmodels) carries a model that is not the ladder: "how long do matches run",
the recipe's worked example in docs/read-models.md, built from the kit alone, against the test Redis.

The model records, once per finished match, its game and its number of events (HSETNX by match id) and keeps a
total per game derived from those records. Checked: the loop applies what the feed brings and sets its lag
gauge; a consumer killed after reading (its model failed mid-batch) leaves the entries pending and another
consumer claims them; the feed delivered again from the start changes nothing; the sweep finds a match no feed
entry brought; a match read from its archive file is the same FinishedMatch as from Redis."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import cast

import pytest
import redis
from prometheus_client import CollectorRegistry, Counter

from services import metrics
from services.archive.files import archive_path, write_archive
from services.keys import Keys
from services.pipeline.direct import DirectClient
from services.pipeline.redis_backend import RedisBackend
from services.pipeline.worker import Worker
from services.readmodels.consumer import FeedConsumer
from services.readmodels.sources import (
    FinishedMatch,
    Walk,
    every_finished,
    finished_among,
    finished_ids,
    from_archive,
    from_redis,
)
from services.replay.files import MatchLog

pytestmark = pytest.mark.redis
# (in a registry of its own: the process's registry is what the service exports, which the dashboard test checks)
ERRORS = Counter("airship_test_lengths_errors_total", "Failed passes of the test read model",
                 registry=CollectorRegistry())


class Crash(Exception):
    """The model "killed" mid-batch."""


class Lengths:
    """Finished matches and their lengths (events), per game."""

    name = "lengths"
    errors = ERRORS
    retry_on: tuple[type[Exception], ...] = ()

    def __init__(self, r: redis.Redis, keys: Keys) -> None:
        self.r, self.keys = r, keys
        self.crash_next = False

    def key(self, part: str) -> str:
        return f"{self.keys.prefix}:{{lengths}}:{part}"

    def apply(self, match_ids: Sequence[str]) -> None:
        if self.crash_next:
            self.crash_next = False
            raise Crash("killed before acknowledging")
        for match_id in finished_among(self.r, self.keys, match_ids):
            self._record(match_id)

    def sweep(self) -> None:
        for _, ids in finished_ids(self.r, self.keys):
            for match_id in ids:
                self._record(match_id)

    def report(self) -> None:
        pass

    def _record(self, match_id: str) -> None:
        match = from_redis(self.r, self.keys, match_id)
        if match is not None and self.r.hsetnx(self.key("matches"), match_id, len(match.events)):
            self.r.hincrby(self.key("totals"), match.meta.game, 1)  # derived: one per recorded match

    def totals(self) -> dict[str, int]:
        return {k.decode(): int(v) for k, v in cast(dict[bytes, bytes], self.r.hgetall(self.key("totals"))).items()}


def finish(backend: RedisBackend, n: int) -> list[str]:
    """``n`` finished tally matches of 3 moves each, decided by a worker (nothing projected yet)."""
    client = DirectClient(backend)
    ids = []
    for _ in range(n):
        meta = client.create_match("tally", 1, options={"max_total": 9})
        cred = client.join(meta.match_id, 0)[1]
        for key in range(3):
            client.send(meta.match_id, 0, cred, "add", {"n": 3}, command_id=f"0.k{key}")
        ids.append(meta.match_id)
    worker = Worker(backend.bus, backend.store, "w", backend.settings.worker())
    while worker.run_once(block_ms=10):
        pass
    return ids


def drain(consumer: FeedConsumer, claim: bool = False) -> int:
    total = 0
    while n := consumer.run_once(block_ms=10, claim=claim):
        total += n
    return total


def test_the_loop_applies_the_feed_once_and_reports_its_lag(redis_backend: RedisBackend) -> None:
    r, keys = redis_backend.redis, redis_backend.settings.keys
    ids = finish(redis_backend, 3)
    model = Lengths(r, keys)
    consumer = FeedConsumer(r, keys, model, "one", claim_idle_ms=0)
    consumer.report()
    assert sum(metrics.STREAM_LAG.labels("feed-lengths", str(p))._value.get() for p in range(keys.partitions)) > 0
    assert drain(consumer) > 0
    assert model.totals() == {"tally": 3}
    assert {m.decode() for m in cast(dict[bytes, bytes], r.hgetall(model.key("matches")))} == set(ids)
    consumer.report()
    assert all(metrics.STREAM_LAG.labels("feed-lengths", str(p))._value.get() == 0 for p in range(keys.partitions))
    for p in range(keys.partitions):  # the whole feed again, as claims after crashes would bring it
        r.xgroup_setid(keys.feed(p), "lengths", "0")
    assert drain(consumer) > 0
    model.sweep()
    assert model.totals() == {"tally": 3}


def test_a_consumer_killed_mid_batch_leaves_it_to_another(redis_backend: RedisBackend) -> None:
    r, keys = redis_backend.redis, redis_backend.settings.keys
    finish(redis_backend, 2)
    first = Lengths(r, keys)
    first.crash_next = True
    with pytest.raises(Crash):
        FeedConsumer(r, keys, first, "dies").run_once(block_ms=10)
    pending = sum(r.xpending(keys.feed(p), "lengths")["pending"] for p in range(keys.partitions))
    assert pending > 0  # read, never acknowledged
    second = Lengths(r, keys)
    assert drain(FeedConsumer(r, keys, second, "takes-over", claim_idle_ms=0), claim=True) > 0
    assert second.totals() == {"tally": 2}
    assert sum(r.xpending(keys.feed(p), "lengths")["pending"] for p in range(keys.partitions)) == 0


def test_a_failing_pass_is_counted_and_retried_not_fatal(redis_backend: RedisBackend) -> None:
    r, keys = redis_backend.redis, redis_backend.settings.keys
    finish(redis_backend, 1)
    model = Lengths(r, keys)
    model.retry_on = (Crash,)
    model.crash_next = True
    consumer = FeedConsumer(r, keys, model, "one", claim_idle_ms=0, claim_every_s=0.0, sweep_every_s=3600)
    before = ERRORS._value.get()
    consumer.heartbeat = lambda: consumer.stop() if model.totals() else None
    consumer.run()  # the first pass fails, the retry claims the batch back and applies it
    assert ERRORS._value.get() == before + 1
    assert model.totals() == {"tally": 1}


def test_the_sweep_finds_a_match_no_feed_entry_brought(redis_backend: RedisBackend) -> None:
    r, keys = redis_backend.redis, redis_backend.settings.keys
    (match_id,) = finish(redis_backend, 1)
    for p in range(keys.partitions):
        r.xtrim(keys.feed(p), maxlen=0)  # trimmed before this model ever read it
    model = Lengths(r, keys)
    assert drain(FeedConsumer(r, keys, model, "one")) == 0
    model.sweep()
    assert model.totals() == {"tally": 1} and r.hget(model.key("matches"), match_id) == b"4"  # set-up + 3 moves


def test_a_match_from_its_archive_file_is_the_match_from_redis(redis_backend: RedisBackend, tmp_path: Path) -> None:
    r, keys = redis_backend.redis, redis_backend.settings.keys
    (match_id,) = finish(redis_backend, 1)
    live = from_redis(r, keys, match_id)
    assert live is not None and live.meta.status == "finished"
    write_archive(archive_path(tmp_path, match_id, keys.partitions), MatchLog(live.meta, live.events))
    archived = from_archive(None, keys, MatchLog(live.meta, live.events))
    assert archived == FinishedMatch(live.meta, live.events, live.links, live.created_ms, "archive")
    walk = Walk()
    found = list(every_finished(r, keys, tmp_path, walk=walk))
    assert [(m.meta.match_id, m.source) for m in found] == [(match_id, "redis"), (match_id, "archive")]
    assert (walk.from_redis, walk.from_archive, walk.unreadable) == (1, 1, {})
    assert found[0].events == found[1].events
