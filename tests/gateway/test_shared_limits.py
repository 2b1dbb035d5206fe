"""The limits shared by gateway replicas (services/gateway/shared_limits.py) against real Redis, with three
instances in one process, each with its own gateway id, as three gateways would run them:

- a rate holds across the three: a client spread over them gets the bucket's burst and rate, not three times it,
  and not less; a key below its limit costs one round trip per many requests;
- held counts (sockets, long-polls) hold across the three, exactly, whether acquired one by one or all at once;
- a dead gateway's counts vanish from the totals once its time to live has passed;
- with Redis down each gateway limits alone (no request fails for it), and shares again once Redis is back;
- no seat token or address reaches Redis.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager

import pytest
import redis
import redis.asyncio as aioredis

from services.gateway.shared_limits import Limit, SharedLimits
from services.pipeline.redis_backend import connect, delete_prefix
from tests.ops.conftest import free_port

pytestmark = pytest.mark.redis
RATE = Limit("token_rate", 40, 10.0, "seat token")  # 10 per second, bursts of 40
SLOTS = Limit("address_sockets", 6, what="address")


@pytest.fixture
def prefix(redis_url: str) -> Iterator[str]:
    name = f"airship-limits-{uuid.uuid4().hex[:8]}"
    yield name
    delete_prefix(connect(redis_url), name)


@asynccontextmanager
async def gateways(url: str, prefix: str, count: int = 3, **options: float) -> AsyncIterator[list[SharedLimits]]:
    """``count`` started instances on one prefix, ids g0, g1, ...; closed (and their clients) after."""
    clients = [aioredis.Redis.from_url(url) for _ in range(count)]
    limits = [SharedLimits(c, prefix, f"g{i}", **options) for i, c in enumerate(clients)]
    for lim in limits:
        await lim.start()
    try:
        yield limits
    finally:
        for lim in limits:
            await lim.close()
        for c in clients:
            await c.aclose()


def test_a_rate_holds_across_three_gateways(redis_url: str, prefix: str) -> None:
    """One key flooded round-robin over three gateways for 2 s: at most burst + rate * time admitted (the leases
    are taken atomically: no overshoot), and at least what the bucket gives; the round trips are bounded by time
    (at most one per ``min_gap_s`` per gateway once the bucket is empty), not by the requests."""
    async def run() -> tuple[int, int, float, int]:
        async with gateways(redis_url, prefix) as gws:
            admitted = tries = 0
            started = time.monotonic()
            while time.monotonic() - started < 2.0:
                admitted += await gws[tries % 3].take(RATE, "token-a") == 0
                tries += 1
                await asyncio.sleep(0)
            return admitted, tries, time.monotonic() - started, sum(g.flushes for g in gws)

    admitted, tries, elapsed, flushes = asyncio.run(run())
    allowed = RATE.limit + RATE.rate * elapsed
    assert admitted <= allowed + 1, (admitted, allowed)
    assert admitted >= RATE.limit + RATE.rate * (elapsed - 0.5), (admitted, allowed)  # a third would be 23
    assert tries > 10 * admitted, tries
    assert flushes <= 3 * (elapsed / 0.05 + 10), flushes


def test_below_its_limit_a_key_costs_one_round_trip_per_many_requests(redis_url: str, prefix: str) -> None:
    limit = Limit("address_rate", 800, 200.0, "address")

    async def run() -> tuple[int, int, int]:
        async with gateways(redis_url, prefix) as gws:
            admitted = tries = 0
            started = time.monotonic()
            while time.monotonic() - started < 1.5:  # about 250 a second, round-robin
                admitted += await gws[tries % 3].take(limit, "10.0.0.1") == 0
                tries += 1
                await asyncio.sleep(0.004)
            return admitted, tries, sum(g.flushes for g in gws)

    admitted, tries, flushes = asyncio.run(run())
    assert admitted == tries, (admitted, tries)
    assert flushes * 15 <= tries, (flushes, tries)


def test_held_counts_hold_across_three_gateways(redis_url: str, prefix: str) -> None:
    """Six slots per key: one by one or all at once over three gateways, exactly six are given; a slot given
    back at one gateway can be taken at another once the first is idle."""
    async def run() -> None:
        async with gateways(redis_url, prefix, idle_s=0.3) as gws:
            one_by_one = [await gws[i % 3].acquire(SLOTS, "one") for i in range(18)]
            assert sum(one_by_one) == 6 and all(one_by_one[:6]), one_by_one
            at_once = await asyncio.gather(*(gws[i % 3].acquire(SLOTS, "many") for i in range(18)))
            assert sum(at_once) == 6, at_once
            assert sum(g.held(SLOTS, "many") for g in gws) == 6
            gws[0].release(SLOTS, "one")
            assert await gws[0].acquire(SLOTS, "one")  # the slot stays reserved where it was freed
            gws[0].release(SLOTS, "one")
            await asyncio.sleep(0.6)  # idle: it goes back
            assert await gws[1].acquire(SLOTS, "one")
            assert not await gws[2].acquire(SLOTS, "one")

    asyncio.run(run())


def test_a_dead_gateways_counts_vanish_after_its_ttl(redis_url: str, prefix: str) -> None:
    r = connect(redis_url)

    async def run() -> None:
        async with gateways(redis_url, prefix, ttl_s=1.0) as gws:
            live, dead = gws[0], gws[2]
            assert all([await dead.acquire(SLOTS, "a") for _ in range(4)])
            assert [await live.acquire(SLOTS, "a") for _ in range(3)] == [True, True, False]
            task, dead._task = dead._task, None  # the process dies: no more flushes, nothing taken out
            assert task is not None
            task.cancel()
            assert r.zscore(live.registry, "g2") is not None and r.exists(dead.counts_prefix + "g2")
            await asyncio.sleep(1.3)
            assert r.zscore(live.registry, "g2") is None and not r.exists(dead.counts_prefix + "g2")
            assert [await live.acquire(SLOTS, "a") for _ in range(5)] == [True] * 4 + [False]
            assert live.held(SLOTS, "a") == 6 and r.zscore(live.registry, "g0") is not None  # its heartbeat

    asyncio.run(run())


@pytest.fixture
def private_redis() -> Iterator[tuple[int, list[subprocess.Popen[bytes]]]]:
    """A redis-server of this test's own on a free port (no persistence), which the test may kill and restart."""
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    port = free_port()
    procs: list[subprocess.Popen[bytes]] = []
    yield port, procs
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _start(port: int, procs: list[subprocess.Popen[bytes]]) -> None:
    procs.append(subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                   "--appendonly", "no"], stdout=subprocess.DEVNULL))
    client = redis.Redis(port=port)
    for _ in range(100):
        try:
            client.ping()
            return
        except redis.ConnectionError:
            time.sleep(0.05)
    raise AssertionError("the private redis-server did not start")


def test_with_redis_down_each_gateway_limits_alone_and_shares_again_when_it_is_back(
        private_redis: tuple[int, list[subprocess.Popen[bytes]]]) -> None:
    port, procs = private_redis
    _start(port, procs)
    url = f"redis://127.0.0.1:{port}/0"

    async def run() -> None:
        async with gateways(url, "airship", count=2, ttl_s=1.0) as (g0, g1):
            assert [await g0.acquire(SLOTS, "a") for _ in range(2)] == [True, True]
            assert await g1.take(RATE, "warm") == 0 and g1.replicas == 2
            procs[-1].kill()
            procs[-1].wait()
            # alone: this gateway's share of the limits (two gateways were live); nothing raises
            assert [await g1.acquire(SLOTS, "b") for _ in range(4)] == [True, True, True, False]
            assert g1.failing
            admitted = [await g1.take(RATE, "t") == 0 for _ in range(30)]
            assert sum(admitted) == RATE.limit / 2, admitted  # a burst of 40 / 2 gateways
            _start(port, procs)  # an empty Redis: every gateway publishes what it holds again
            counts = redis.Redis(port=port)

            def published(g: SharedLimits, key: str) -> int:
                return int(counts.hget(g.counts_prefix + g.id, g._entries[(SLOTS.name, key)].digest) or 0)

            deadline = time.monotonic() + 5
            while (published(g0, "a"), published(g1, "b")) != (2, 3) and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            assert (published(g0, "a"), published(g1, "b")) == (2, 3)
            assert not g0.failing and not g1.failing
            assert [await g0.acquire(SLOTS, "b") for _ in range(4)] == [True, True, True, False]  # 3 + 3 = 6

    asyncio.run(run())


def test_no_token_or_address_reaches_redis(redis_url: str, prefix: str) -> None:
    token = "0." + "ab" * 24
    address = "2001:db8:1:2::/64"

    async def run() -> None:
        async with gateways(redis_url, prefix, count=1) as (g0,):
            assert await g0.take(RATE, token) == 0 and await g0.acquire(SLOTS, address)
            r = connect(redis_url)
            stored = []
            for key in r.scan_iter(match=f"{prefix}:*"):
                stored.append(key)
                if r.type(key) == b"hash":
                    stored += [f + v for f, v in r.hgetall(key).items()]
                if r.type(key) == b"zset":
                    stored += r.zrange(key, 0, -1)
            assert len(stored) >= 4, stored
            assert not [s for s in stored if token.encode() in s or b"2001:db8" in s], stored

    asyncio.run(run())


def test_requests_arriving_while_a_flush_is_under_way_are_not_refused(redis_url: str, prefix: str) -> None:
    """Far below the limit, nobody is refused, however requests interleave with the flushes (Redis answering
    slowly here: each flush takes 30 ms): one that arrives while a flush is under way, or takes a slot another
    was waiting for, asks again."""
    lots = Limit("address_sockets", 10**6)

    async def run() -> list[bool]:
        async with gateways(redis_url, prefix, count=1) as (g0,):
            script = g0._script

            async def slow(**kw: object) -> object:
                await asyncio.sleep(0.03)
                return await script(**kw)

            g0._script = slow  # type: ignore[assignment]

            async def one(i: int) -> bool:
                await asyncio.sleep(i * 0.002)
                return await g0.acquire(lots, "a") and await g0.take(RATE, f"t{i % 3}") == 0

            return await asyncio.gather(*(one(i) for i in range(120)))

    admitted = asyncio.run(run())
    assert all(admitted[:RATE.limit * 3]), admitted


def test_a_lease_held_at_one_gateway_is_not_refilled_in_the_bucket(redis_url: str, prefix: str) -> None:
    """A gateway that leased tokens ahead keeps them (idle_s is long here) while the bucket refills: the bucket
    refills only up to the burst less what is leased, so a flood over the three gateways right after gets at most
    burst + rate * time, leases included."""
    limit = Limit("address_rate", 100, 20.0)

    async def run() -> tuple[int, float, float]:
        async with gateways(redis_url, prefix, idle_s=5.0) as gws:
            for _ in range(20):  # 10 a second at gateway 0: it leases about 20 ahead
                assert await gws[0].take(limit, "k") == 0
                await asyncio.sleep(0.1)
            leased = gws[0]._entries[(limit.name, "k")].spare
            await asyncio.sleep(1.5)  # the bucket would be full again, without the lease
            admitted = tries = 0
            started = time.monotonic()
            while time.monotonic() - started < 1.0:
                admitted += await gws[tries % 3].take(limit, "k") == 0
                tries += 1
                await asyncio.sleep(0)
            return admitted, time.monotonic() - started, leased

    admitted, elapsed, leased = asyncio.run(run())
    assert leased >= 10, leased  # the test tests something
    assert admitted <= limit.limit + limit.rate * elapsed + 1, (admitted, elapsed, leased)
