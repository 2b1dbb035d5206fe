"""The workers' trim of the command streams under consumers that acknowledge while it runs (#32: "maintenance
failed: Invalid stream ID" every few minutes: the pending count and its minimum were read apart, and an
acknowledgement in between made the minimum None). Trimming never fails and never drops an entry that is still
pending or not yet delivered."""

from __future__ import annotations

import threading
import uuid

import pytest
import redis

from services.pipeline.redis_streams import GroupStreams

pytestmark = pytest.mark.redis


def test_trim_while_consumers_acknowledge(redis_url: str) -> None:
    r = redis.Redis.from_url(redis_url)
    name = f"airship-test-trim-{uuid.uuid4().hex[:8]}:{{0}}:commands"
    streams = GroupStreams(r, [name], "workers")
    stop = threading.Event()
    kept_pending: list[bytes] = []

    def consume() -> None:
        own = redis.Redis.from_url(redis_url)
        n = 0
        while not stop.is_set():
            own.xadd(name, {"e": b"x"})
            for _stream, entries in own.xreadgroup("workers", "c", {name: ">"}, count=10) or []:
                for entry_id, _fields in entries:
                    n += 1
                    if n % 50 == 0:
                        kept_pending.append(entry_id)  # left pending: must survive every trim
                    else:
                        own.xack(name, "workers", entry_id)
        own.close()

    thread = threading.Thread(target=consume, daemon=True)
    thread.start()
    try:
        for _ in range(1500):
            streams.trim()
    finally:
        stop.set()
        thread.join(10)
    try:
        assert kept_pending, "the consumer left nothing pending"
        for entry_id in kept_pending:
            assert r.xrange(name, entry_id, entry_id), f"pending entry {entry_id!r} was trimmed"
        undelivered = r.xadd(name, {"e": b"y"})
        streams.trim()
        assert r.xrange(name, undelivered, undelivered)
    finally:
        r.delete(name)
        r.close()
