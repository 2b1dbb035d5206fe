"""The compact log on Redis: every slice a reader asks for, from the workers' store and the gateway's, equals
the log as written, including slices that start inside a command (the reader looks back for its id)."""

from __future__ import annotations

import asyncio
import itertools

import pytest

from schemas.envelopes import CommandResult, EventEnvelope, MatchMeta
from services.gateway.store import GatewayStore, connect_async
from services.pipeline import redis_backend as backend_module
from services.pipeline.ports import AppendStatus
from services.pipeline.redis_backend import RedisBackend
from tests.schemas.test_logentry import played_log

pytestmark = pytest.mark.redis


def store_log(backend: RedisBackend, log: list[EventEnvelope]) -> str:
    """The played log written to Redis as a worker writes it: set-up at creation, then one append per command."""
    match_id = log[0].match_id
    setup = [e for e in log if e.command_id is None]
    meta = MatchMeta(match_id=match_id, game="mad-zeppelin", seats=4, status="running")
    assert backend.store.create_match(meta, setup)
    version = len(setup)
    for cid, group in itertools.groupby(log[len(setup):], key=lambda e: e.command_id):
        events = list(group)
        result = CommandResult(command_id=cid or "", match_id=match_id, status="accepted",
                               version=version + len(events), events=len(events), seat=events[0].seat)
        assert backend.store.append(match_id, version, events, result).status is AppendStatus.APPENDED
        version += len(events)
    return match_id


def test_every_slice_of_a_stored_log_reads_back(redis_backend: RedisBackend, monkeypatch: pytest.MonkeyPatch) -> None:
    log = played_log("mad-zeppelin", seed=5)
    match_id = store_log(redis_backend, log)
    store = redis_backend.store
    assert store.read_log(match_id) == log
    monkeypatch.setattr(backend_module, "LOOKBACK", 1)  # look back one entry at a time: the loop is exercised
    for after in range(len(log)):
        assert store.read_log(match_id, after=after, limit=3) == log[after:after + 3], after

    async def gateway_slices() -> None:
        r = connect_async(redis_backend.settings.redis_url)
        gateway = GatewayStore(r, redis_backend.settings)
        try:
            for after in range(0, len(log), 5):
                assert await gateway.read_log(match_id, "mad-zeppelin", after=after, limit=4) == log[after:after + 4]
        finally:
            await r.aclose()

    asyncio.run(gateway_slices())


def test_the_log_takes_far_less_memory_than_whole_envelopes(redis_backend: RedisBackend) -> None:
    log = played_log("mad-zeppelin", seed=5)
    match_id = store_log(redis_backend, log)
    used = redis_backend.redis.memory_usage(redis_backend.settings.keys.log(match_id), samples=0)
    assert used / len(log) < 160, used / len(log)
