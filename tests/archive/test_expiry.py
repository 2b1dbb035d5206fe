"""Open matches nobody filled leave Redis (``AIRSHIP_OPEN_TTL_S``): the archiver removes every key of a match
still waiting for players once it is older than the limit, and never one that began (even at the last moment)
or a younger one."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from services.archive.archiver import Archiver
from services.archive.expiry import OpenExpiry
from services.pipeline.direct import DirectClient
from services.pipeline.redis_backend import RedisBackend
from services.pipeline.redis_local import LocalServices
from services.settings import Settings

pytestmark = pytest.mark.redis

TTL_S = 3600.0


@pytest.fixture
def backend(redis_settings: Settings) -> Iterator[RedisBackend]:
    """With a worker, which decides the archiver's purges (its open TTL: ``TTL_S``)."""
    settings = dataclasses.replace(redis_settings, open_ttl_s=TTL_S)
    services = LocalServices(settings, projectors=0).start()
    backend = RedisBackend(settings)
    yield backend
    services.stop()
    backend.close()


def keys_of(backend: RedisBackend, match_id: str) -> list[bytes]:
    k = backend.settings.keys
    return sorted(backend.redis.scan_iter(match=f"{k.tag(k.partition(match_id))}:match:{match_id}:*"))


def age(backend: RedisBackend, match_id: str, status: str, seconds: float) -> None:
    """Make the match look created ``seconds`` ago (the status set's score is the creation time)."""
    created_ms = int((time.time() - seconds) * 1000)
    backend.redis.zadd(backend.settings.keys.match_matches(match_id, status), {match_id: created_ms})


def test_old_open_matches_are_removed_and_nothing_else(backend: RedisBackend, tmp_path: Path) -> None:
    client = DirectClient(backend, poll_ms=20)
    k = backend.settings.keys
    old = [client.create_match("moderne-zeiten", 3).match_id for _ in range(3)]
    young = client.create_match("nim", 2).match_id
    half = client.create_match("nim", 2).match_id  # one seat taken: still open, and old
    client.join(half, 0)
    began = client.create_match("nim", 2).match_id  # old, but every seat taken: running
    for seat in range(2):
        client.join(began, seat)
    for match_id in (*old, half):
        age(backend, match_id, "open", TTL_S + 5)
    age(backend, young, "open", TTL_S - 60)
    age(backend, began, "running", TTL_S + 5)
    assert all(keys_of(backend, m) for m in (*old, young, half, began))
    kept = {m: keys_of(backend, m) for m in (young, began)}

    settings = dataclasses.replace(backend.settings, open_ttl_s=TTL_S, archive_grace_s=10**9)
    report = Archiver(backend.redis, settings, tmp_path).run_once()
    assert sorted(report.expired) == sorted([*old, half]) and not report.archived and not report.errors
    for match_id in (*old, half):
        assert keys_of(backend, match_id) == [], match_id
        assert backend.redis.zscore(k.match_matches(match_id, "open"), match_id) is None
    assert {m: keys_of(backend, m) for m in (young, began)} == kept
    assert backend.redis.zscore(k.match_matches(young, "open"), young) is not None
    assert client.match(began).status == "running"
    assert Archiver(backend.redis, settings, tmp_path).run_once().expired == []  # nothing left to do
    assert not list(tmp_path.rglob("*.gz"))  # removed, not archived: nobody played them


def test_a_match_that_began_meanwhile_stays(backend: RedisBackend) -> None:
    """The open-set entry may be stale (the match began after the range read): the script checks the status."""
    client = DirectClient(backend, poll_ms=20)
    k = backend.settings.keys
    match_id = client.create_match("nim", 2).match_id
    for seat in range(2):
        client.join(match_id, seat)
    backend.redis.zadd(k.match_matches(match_id, "open"), {match_id: 1})  # as if read before the join
    expiry = OpenExpiry(backend.redis, k, TTL_S)
    assert expiry.due(k.partition(match_id), time.time() * 1000) == [match_id]
    assert expiry.expire(match_id) is False
    assert client.match(match_id).status == "running" and keys_of(backend, match_id)
    assert backend.redis.zscore(k.match_matches(match_id, "open"), match_id) is None  # the stale entry went


def test_zero_keeps_open_matches(backend: RedisBackend, tmp_path: Path) -> None:
    client = DirectClient(backend, poll_ms=20)
    match_id = client.create_match("nim", 2).match_id
    age(backend, match_id, "open", 10**7)
    report = Archiver(backend.redis, dataclasses.replace(backend.settings, open_ttl_s=0), tmp_path).run_once()
    assert report.expired == [] and keys_of(backend, match_id)


def test_the_worker_refuses_to_purge_a_young_open_match(backend: RedisBackend) -> None:
    """The purge is the worker's decision: an archiver with a shorter TTL than the worker's removes nothing."""
    client = DirectClient(backend, poll_ms=20)
    k = backend.settings.keys
    match_id = client.create_match("nim", 2).match_id
    age(backend, match_id, "open", TTL_S - 60)
    expiry = OpenExpiry(backend.redis, k, 1.0, wait_s=1.0)
    assert expiry.due(k.partition(match_id), time.time() * 1000) == [match_id]
    assert expiry.expire(match_id) is False
    assert keys_of(backend, match_id) and backend.redis.zscore(k.match_matches(match_id, "open"), match_id)
