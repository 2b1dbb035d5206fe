"""The backend contract against real Redis, and the atomic append under concurrency."""

from __future__ import annotations

import threading
from collections import Counter

import pytest

from schemas.envelopes import CommandResult
from services.pipeline import redis_backend as redis_backend_module
from services.pipeline.ports import AppendItem, AppendOutcome, AppendStatus
from services.pipeline.redis_backend import RedisBackend
from services.settings import Settings
from tests.pipeline.contract import BackendContract, accepted, event, meta
from tests.pipeline.lobby_contract import LobbyContract

pytestmark = pytest.mark.redis


class TestRedisBackend(BackendContract, LobbyContract):
    @pytest.fixture
    def backend(self, redis_backend: RedisBackend) -> RedisBackend:
        return redis_backend

    def add_raw(self, backend: RedisBackend, stream: str, match_id: str, data: bytes | None) -> None:
        keys = backend.settings.keys
        partition = keys.partition(match_id)
        name = keys.commands(partition) if stream == "commands" else keys.feed(partition)
        backend.redis.xadd(name, {b"e": data} if data is not None else {b"junk": b"no payload"})


def _in_threads(count: int, target: object) -> None:
    threads = [threading.Thread(target=target, args=(i,)) for i in range(count)]  # type: ignore[arg-type]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)


def test_concurrent_appends_give_versions_without_gaps_or_duplicates(redis_settings: Settings) -> None:
    """Eight appenders, each with its own connection, race to append 25 commands each to one match."""
    setup = RedisBackend(redis_settings)
    setup.store.create_match(meta("race"), [event("race", 1)])
    conflicts = Counter[int]()

    def appender(i: int) -> None:
        backend = RedisBackend(redis_settings)
        for n in range(25):
            cid = f"w{i}-c{n}"
            while True:
                version = backend.store.version("race")
                events = [event("race", version + 1, cid=cid), event("race", version + 2, cid=cid)]
                outcome = backend.store.append("race", version, events, accepted(cid, "race", version + 2))
                if outcome.status is AppendStatus.APPENDED:
                    break
                assert outcome.status is AppendStatus.CONFLICT
                conflicts[i] += 1
        backend.close()

    _in_threads(8, appender)
    log = setup.store.read_log("race")
    assert [e.version for e in log] == list(range(1, 1 + 1 + 8 * 25 * 2))
    per_command = Counter(e.body["cid"] for e in log[1:])
    assert len(per_command) == 8 * 25 and set(per_command.values()) == {2}
    assert setup.store.version("race") == len(log)
    assert sum(conflicts.values()) > 0, "the appenders never raced; the test proves nothing"
    setup.close()


def test_a_duplicate_command_id_returns_the_first_result_under_concurrency(redis_settings: Settings) -> None:
    setup = RedisBackend(redis_settings)
    setup.store.create_match(meta("dup"), [event("dup", 1)])
    outcomes: list[AppendOutcome] = []
    barrier = threading.Barrier(6)

    def appender(i: int) -> None:
        backend = RedisBackend(redis_settings)
        result = CommandResult(command_id="same", match_id="dup", status="accepted", version=2, events=i)
        barrier.wait()
        outcomes.append(backend.store.append("dup", 1, [event("dup", 2, by=i)], result))
        backend.close()

    _in_threads(6, appender)
    statuses = Counter(o.status for o in outcomes)
    assert statuses == {AppendStatus.APPENDED: 1, AppendStatus.DUPLICATE: 5}
    (first,) = [o.result for o in outcomes if o.status is AppendStatus.APPENDED]
    assert all(o.result == first for o in outcomes)
    assert setup.store.result("dup", "same") == first
    assert [e.version for e in setup.store.read_log("dup")] == [1, 2]
    setup.close()


def test_an_append_to_an_unknown_match_is_an_error(redis_backend: RedisBackend) -> None:
    with pytest.raises(KeyError):
        redis_backend.store.append("ghost", 0, [], accepted("c", "ghost", 0))


def test_a_batch_of_many_matches_is_one_script_call_on_one_server(redis_backend: RedisBackend,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The appends of a batch cost Redis one script call, not one per match (on a cluster: one per partition)."""
    store, keys = redis_backend.store, redis_backend.settings.keys
    ids = [f"many{i}" for i in range(12)]
    assert len({keys.partition(m) for m in ids}) > 1
    for m in ids:
        store.create_match(meta(m), [event(m, 1)])
    calls: list[int] = []
    real = redis_backend_module.queue_script
    monkeypatch.setattr(redis_backend_module, "queue_script",
                        lambda pipe, script, k, args: (calls.append(len(k)), real(pipe, script, k, args))[1])
    outcomes = store.append_chains({m: [AppendItem(1, [event(m, 2)], accepted(f"{m}-c", m, 2))] for m in ids})
    assert calls == [9 * len(ids)]  # nine keys a match (lua/append.lua)
    assert all([o.status for o in outcomes[m]] == [AppendStatus.APPENDED] for m in ids)
    assert [store.version(m) for m in ids] == [2] * len(ids)


def test_a_read_ahead_travels_with_the_appends_and_names_the_partitions_that_may_hold_more(
        redis_backend: RedisBackend) -> None:
    bus, store, keys = redis_backend.bus, redis_backend.store, redis_backend.settings.keys
    partitions = keys.partitions
    ids = {}
    for i in range(200):  # two matches of different partitions
        ids.setdefault(keys.partition(f"ra{i}"), f"ra{i}")
        if len(ids) == 2:
            break
    (hot, hot_id), (_, cold_id) = ids.items()
    for n in range(5):
        bus.publish(hot_id, f"hot-{n}".encode())
    bus.publish(cold_id, b"cold-0")
    assert bus.read_ahead("w", partitions - 1) is None  # fewer than one per partition: a sweep's work
    ahead = bus.read_ahead("w", 2 * partitions)  # two from each partition at most
    assert ahead is not None and ahead.deliveries is None
    store.create_match(meta(hot_id), [event(hot_id, 1)])
    outcomes = store.append_chains({hot_id: [AppendItem(1, [event(hot_id, 2)], accepted("x", hot_id, 2))]}, ahead)
    assert [o.status for o in outcomes[hot_id]] == [AppendStatus.APPENDED]
    assert sorted(d.data for d in ahead.deliveries or []) == [b"cold-0", b"hot-0", b"hot-1"]
    assert ahead.more == [hot]
    assert [d.data for d in bus.read("w", 10, 0, ahead.more)] == [b"hot-2", b"hot-3", b"hot-4"]


def test_every_key_of_a_match_carries_its_partition_tag(redis_backend: RedisBackend) -> None:
    """All keys a Lua script touches share one hash tag, so the script is valid on Redis Cluster."""
    store = redis_backend.store
    store.create_match(meta("tagged"), [event("tagged", 1)])
    store.append("tagged", 1, [event("tagged", 2)], accepted("c", "tagged", 2), finished=True)
    partition = redis_backend.settings.keys.partition("tagged")
    prefix = redis_backend.settings.key_prefix
    keys = [k.decode() for k in redis_backend.redis.scan_iter(match=f"{prefix}:*")]
    match_keys = [k for k in keys if ":match:tagged:" in k]
    assert {k.split(":match:")[0] for k in match_keys} == {f"{prefix}:{{{partition}}}"}
    assert len(match_keys) >= 4
    assert redis_backend.redis.ttl(redis_backend.settings.keys.results("tagged")) > 0, "results expire after the end"
