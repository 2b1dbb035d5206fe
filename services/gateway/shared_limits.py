"""Limits shared by every gateway replica, kept in Redis at one round trip per many requests, not one per request.

A gateway decides each request locally, against what Redis granted it before, and flushes to Redis only when a
key needs more: one call of ``lua/limits.lua`` on the ``{limits}`` hash slot (so it runs unchanged on Redis
Cluster) carries every key that needs something at that moment. The grants are decided inside the script,
atomically, so no two gateways are ever given the same request or slot:

- **rates** (token buckets per key, in Redis): a gateway takes a *lease* of tokens out of the key's bucket: what
  the requests waiting now need, plus what the key used here over the last ``idle_s`` (at most a ``1/n`` share of
  what is left, for ``n`` live gateways), and admits requests from the lease with no round trip. A lease the key
  leaves unused for ``idle_s`` goes back to the bucket;
- **concurrent counts** (open sockets, waiting long-polls): a gateway publishes, per key, what it holds plus what
  it reserved for the requests waiting now, in a hash of its own that expires ``ttl_s`` after its last flush (a
  gateway holding anything flushes every ``ttl_s / 3``), so a crashed gateway's counts vanish within seconds; the
  script sums the live gateways' hashes. A slot freed here stays reserved here until the key is idle for
  ``idle_s``, or goes back at once when the key is near its limit.

So the limits hold exactly across replicas (no overshoot) while Redis answers. A key that needs more asks for a
flush and waits for it (at most ``demand_wait_s``; requests waiting at the same moment share the round trip, and
flushes are at least ``spacing_s`` apart); a key Redis had nothing left for asks again after ``min_gap_s``. While
Redis does not answer (or not within ``demand_wait_s``, for a request that waits), each gateway limits alone with
its share of the last ``n`` it saw (``rate / n`` with bursts of ``burst / n``; ``ceil(limit / n)`` held), and goes
back to the shared counts when Redis answers. Keys are hashed before they reach Redis: no seat token or client
address is stored there.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import math
import os
import re
import socket
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import redis.asyncio as aioredis

from services import metrics
from services.keys import Keys
from services.logs import error_text, get_logger

log = get_logger("gateway")
LUA = (Path(__file__).parent / "lua" / "limits.lua").read_text()
MAX_BATCH = 2000  # keys per flush (the rest go in the next one)
MAX_KEYS = 200_000  # entries kept in memory before idle ones are swept at once


@dataclass(frozen=True, slots=True)
class Limit:
    """One limit: ``name`` (the metric label and the field prefix in Redis), ``what`` (for the refusal's text).
    A rate limit admits ``rate`` requests per second per key in bursts of ``limit``; a concurrent one (``rate``
    0) lets a key hold at most ``limit`` at once."""

    name: str
    limit: float
    rate: float = 0.0
    what: str = ""


@dataclass(slots=True)
class _Entry:
    limit: Limit
    key: str
    digest: str
    spare: float = 0.0  # rates: leased tokens left; counts: reserved slots left
    count: int = 0  # counts: held here now
    room: float = 0.0  # what Redis had left at the last flush (rates: the level)
    synced: float = 0.0  # when a flush last answered for it (monotonic; 0: never)
    used: float = 0.0  # when it was last taken, acquired or released
    want: bool = False  # the next flush asks for more
    asks: int = 0  # what the requests waiting for that flush cost (units)
    seen: int = 0  # rates: requests since ``seen_from`` (the rate it is used at here: how much to lease ahead)
    spent: int = 0  # rates: leased tokens used since the last report
    seen_from: float = 0.0
    top_up: bool = False  # rates: the next flush tops its lease up ahead of need
    give_back: bool = False  # the next flush returns the spare (the key is idle)
    inflight: bool = False
    local: float = -1.0  # rates, while Redis fails: a bucket of this gateway's own (-1: none yet)
    local_at: float = 0.0


@dataclass(slots=True)
class _Batch:
    held: list[tuple[_Entry, int, int]] = field(default_factory=list)  # entry, held and reserved, needed
    # entry, given back, used since the last report, needed, ahead
    buckets: list[tuple[_Entry, float, int, int, int]] = field(default_factory=list)
    waiters: list[asyncio.Future[None]] = field(default_factory=list)


def gateway_id() -> str:
    """A name for this gateway process in Redis: host, pid and a random part."""
    host = re.sub(r"[^A-Za-z0-9.-]", "", socket.gethostname())[:40] or "host"
    return f"{host}-{os.getpid()}-{uuid.uuid4().hex[:6]}"


class SharedLimits:
    """The limits of one gateway, flushed to Redis by a background task (:meth:`start`, :meth:`close`)."""

    def __init__(self, r: aioredis.Redis, prefix: str, ident: str | None = None, ttl_s: float = 3.0,
                 idle_s: float = 0.5, lease_s: float = 2.0, demand_wait_s: float = 0.25, min_gap_s: float = 0.05,
                 spacing_s: float = 0.005) -> None:
        self.r = r
        self.id = ident or gateway_id()
        self.ttl_s, self.idle_s, self.demand_wait_s = ttl_s, idle_s, demand_wait_s
        self.min_gap_s, self.spacing_s, self.lease_s = min_gap_s, spacing_s, lease_s
        keys = Keys(prefix)
        self.registry, self.counts_prefix, self.bucket_prefix = (keys.limits("gateways"), keys.limits("gw:"),
                                                                 keys.limits("rate:"))
        self.replicas = 1  # live gateways at the last flush (this one included)
        self.failing = False  # the last flush failed: decide locally
        self.flushes = 0  # successful flushes (round trips), for tests and measurements
        self._script = r.register_script(LUA)
        self._entries: dict[tuple[str, str], _Entry] = {}
        self._dirty: set[tuple[str, str]] = set()
        self._spares: set[tuple[str, str]] = set()  # entries holding a lease or a reservation
        self._published: set[tuple[str, str]] = set()  # counts this gateway has in Redis (kept alive by heartbeats)
        self._active: set[tuple[str, str]] = set()  # rate keys used since their last flush
        self._closed = False
        self._waiters: list[asyncio.Future[None]] = []
        self._flight: asyncio.Future[None] | None = None
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._swept = time.monotonic()

    # -- decisions ---------------------------------------------------------------------------------
    async def take(self, limit: Limit, key: str, cost: int = 1) -> float:
        """One request of ``key`` that costs ``cost`` units (1: the cheapest; at most the burst) against the
        rate ``limit``: 0 when admitted, else the seconds to wait."""
        cost = max(1, min(int(cost), int(limit.limit)))
        e, answered = await self._ready(limit, key, cost)
        e.seen += cost
        self._active.add((limit.name, key))
        if e.spare >= cost:
            e.spare -= cost
            e.spent += cost
            self._spares.add((limit.name, key))  # reported once the key is idle, if no flush comes first
            return 0.0
        if not answered or e.synced == 0 or self.failing:  # Redis did not answer: this gateway's share, alone
            n, now = self.replicas, time.monotonic()
            cap = max(float(cost), limit.limit / n)
            e.local = cap if e.local < 0 else min(cap, e.local + (now - e.local_at) * limit.rate / n)
            e.local_at = now
            if e.local >= cost:
                e.local -= cost
                return 0.0
            return (cost - e.local) * n / limit.rate
        return max(0.0, cost - e.room) / limit.rate

    async def acquire(self, limit: Limit, key: str) -> bool:
        """Hold one of ``key``'s at most ``limit.limit`` (False: refused); give it back with :meth:`release`."""
        e, answered = await self._ready(limit, key)
        if e.spare >= 1:
            e.spare -= 1
        elif (not answered or e.synced == 0 or self.failing) and \
                e.count < max(1, math.ceil(limit.limit / self.replicas)):
            self._dirty.add((limit.name, key))  # admitted alone: published once Redis answers
        else:
            return False
        e.count += 1
        return True

    def release(self, limit: Limit, key: str) -> None:
        """Give back what :meth:`acquire` admitted: it stays reserved here until the key is idle, or goes back to
        Redis at once when the key is near its limit (the other gateways may need it)."""
        e = self._entries.get((limit.name, key))
        if e is None or e.count <= 0:
            return
        e.count -= 1
        e.spare += 1
        e.used = time.monotonic()
        self._spares.add((limit.name, key))
        if e.room < self.replicas and not self.failing:
            e.give_back = True
            self._dirty.add((limit.name, key))
            self._wake.set()

    def held(self, limit: Limit, key: str) -> int:
        """How many ``key`` holds at this gateway."""
        e = self._entries.get((limit.name, key))
        return e.count if e is not None else 0

    async def _ready(self, limit: Limit, key: str, cost: int = 1) -> tuple[_Entry, bool]:
        """The key's entry, after a flush if it has nothing spare and Redis may have more; and False if that
        flush did not answer within ``demand_wait_s`` (the request is then decided locally, as when Redis
        fails)."""
        k = (limit.name, key)
        now = time.monotonic()
        e = self._entries.get(k)
        if e is None:
            if len(self._entries) >= MAX_KEYS:
                self._sweep(now, force=True)
            e = self._entries[k] = _Entry(limit, key, f"{limit.name}:" + hashlib.blake2b(
                key.encode(), digest_size=12, person=b"airship-limits").hexdigest())
        e.used = now
        # Wait for what is in flight for the key, then ask for more while there may be more; a request that found
        # its share taken by another (which came while the flush was under way) asks again, until the deadline.
        deadline = now + self.demand_wait_s
        answered = True
        while True:
            if e.inflight and self._flight is not None:
                answered = await self._wait(self._flight, deadline)
            now = time.monotonic()
            if not answered or e.spare >= cost or self.failing or self._closed or not (
                    e.synced == 0 or e.room >= 1 or now - e.synced >= self.min_gap_s):
                return e, answered
            if now >= deadline:  # Redis may have more, but not in time: decided locally
                return e, False
            e.want = True
            e.asks += cost
            self._dirty.add(k)
            future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiters.append(future)
            self._wake.set()
            try:
                if self._task is None:  # no flusher running (before the start): flush in this task
                    await self.flush()
                answered = await self._wait(future, deadline)
            finally:
                e.asks -= cost
            if e.spare >= cost or not answered:
                return e, answered

    async def _wait(self, future: asyncio.Future[None], deadline: float) -> bool:
        """Wait for a flush, until ``deadline`` at most: whether it answered."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(future), max(0.0, deadline - time.monotonic()))
        return future.done()

    # -- flushing ----------------------------------------------------------------------------------
    async def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="limits-flusher")

    async def close(self) -> None:
        """Stop flushing and take this gateway's counts out of Redis (they would expire anyway); what is still
        decided afterwards (requests ending while the gateway shuts down) is decided locally."""
        self._closed = True
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)
        if self.flushes:
            with contextlib.suppress(Exception):
                await self.r.zrem(self.registry, self.id)
                await self.r.delete(self.counts_prefix + self.id)

    async def _run(self) -> None:
        """Flush when a request waits (at most one flush per ``spacing_s``), top leases up, give idle spares back,
        and keep this gateway's counts and leases alive (every third of ``ttl_s`` while it has any)."""
        last = 0.0
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.idle_s / 4)
            self._wake.clear()
            now = time.monotonic()
            self._idle_spares(now)
            self._top_ups(now)
            self._sweep(now)
            # while it holds counts or leases in Redis, the gateway must stay in the registry (or they drop out)
            beat = now - last >= self.ttl_s / 3 and bool(self._published or self._spares)
            if not (self._waiters or self._dirty or beat):
                continue
            if now - last < self.spacing_s:
                await asyncio.sleep(self.spacing_s - (now - last))
            last = time.monotonic()
            await self.flush()
            if self.failing:  # do not hammer an unreachable Redis
                await asyncio.sleep(self.idle_s / 4)

    def _top_ups(self, now: float) -> None:
        """Leases about to run out (less than two passes of this loop at the rate they are used) are topped up in
        the next flush, before a request has to wait for it; all of them in one round trip."""
        horizon = self.idle_s / 2
        for k in list(self._active):
            e = self._entries.get(k)
            if e is None or e.seen == 0:
                self._active.discard(k)
            elif e.spare < self._rate_seen(e, now) * horizon and e.room >= 1 and not (e.inflight or e.give_back):
                e.top_up = True
                self._dirty.add(k)

    def _rate_seen(self, e: _Entry, now: float) -> float:
        """Requests per second of the key here, since its last flush."""
        return e.seen / max(self.min_gap_s, now - e.seen_from) if e.seen_from else e.seen / self.idle_s

    def _idle_spares(self, now: float) -> None:
        for k in list(self._spares):
            e = self._entries.get(k)
            if e is None or (e.spare <= 0 and e.spent == 0):
                self._spares.discard(k)
            elif now - e.used > self.idle_s and not e.inflight:
                self._spares.discard(k)
                e.give_back = True
                self._dirty.add(k)

    def _batch(self) -> _Batch:
        now = time.monotonic()
        batch = _Batch(waiters=self._waiters)
        self._waiters = []
        for k in list(self._dirty)[:MAX_BATCH]:
            self._dirty.discard(k)
            e = self._entries.get(k)
            if e is None:
                continue
            e.inflight = True
            need = max(1, e.asks) if e.want else 0
            e.want = False
            if e.limit.rate > 0:
                back = e.spare if e.give_back else 0.0
                e.spare -= back
                # lease ahead ``lease_s`` of use at the rate seen here since last time
                ahead = math.ceil(self._rate_seen(e, now) * self.lease_s) if need or e.top_up else 0
                e.seen, e.seen_from, e.top_up = 0, now, False
                batch.buckets.append((e, back, e.spent, need, ahead))
                e.spent = 0
            else:
                if e.give_back:
                    e.spare = 0.0
                batch.held.append((e, e.count + int(e.spare), need))  # what it holds and keeps reserved
            e.give_back = False
        if self._dirty:
            self._wake.set()
        return batch

    async def flush(self) -> bool:
        """One round trip: give back, publish, take what is wanted. False if Redis failed (then every decision
        is local until a flush succeeds)."""
        batch = self._batch()
        self._flight = asyncio.get_running_loop().create_future()
        keys = [self.registry, self.counts_prefix + self.id, *(self.bucket_prefix + e.digest
                                                               for e, _, _, _, _ in batch.buckets)]
        args: list[Any] = [self.counts_prefix, self.id, int(self.ttl_s * 1000), len(batch.held)]
        for e, held, need in batch.held:
            args += [e.digest, held, need, e.limit.limit]
        for e, back, used, need, ahead in batch.buckets:
            args += [back, used, need, ahead, e.limit.rate, e.limit.limit]
        started = time.perf_counter()
        try:
            reply = cast(list[Any], await asyncio.wait_for(self._script(keys=keys, args=args), 2.0))
        except Exception as e:  # Redis down, slow or refusing: limit locally, try again later
            metrics.GATEWAY_LIMITS_FLUSH_FAILURES.inc()
            if not self.failing:
                log.warning("limits flush failed; limiting locally", error=error_text(e), gateway=self.id)
            self.failing = True
            metrics.GATEWAY_LIMITS_LOCAL.set(1)
            self._dirty.update((entry.limit.name, entry.key) for entry, _, _ in batch.held)  # published again
            for entry, _, used, _, _ in batch.buckets:  # reported again (what was given back is lost)
                entry.spent += used
            self._done(batch)
            return False
        metrics.GATEWAY_LIMITS_FLUSH_SECONDS.observe(time.perf_counter() - started)
        self._apply(batch, reply)
        self._done(batch)
        return True

    def _apply(self, batch: _Batch, reply: list[Any]) -> None:
        now = time.monotonic()
        _, live, existed, reserved, rooms, given, levels = reply
        recovered = self.failing
        if recovered:
            log.info("limits flush works again; limits shared", gateway=self.id)
        self.failing = False
        metrics.GATEWAY_LIMITS_LOCAL.set(0)
        self.flushes += 1
        self.replicas = max(1, int(live))
        metrics.GATEWAY_LIMITS_REPLICAS.set(self.replicas)
        # Redis now has, per count, what was sent plus ``more``; acquiring and releasing move one between count and
        # spare, so count + spare stays what Redis has: the spare grows by ``more``. A lease adds its tokens.
        for (e, held, _), more, room in zip(batch.held, reserved, rooms, strict=True):
            e.spare += int(more)
            e.room, e.synced = float(room) - int(more), now
            k = (e.limit.name, e.key)
            if held + int(more) > 0:
                self._published.add(k)
            else:
                self._published.discard(k)
        for (e, _, _, _, _), took, level in zip(batch.buckets, given, levels, strict=True):
            e.spare += int(took)
            e.room, e.synced = float(level), now
            e.local = -1.0
        for e in (*(b[0] for b in batch.held), *(b[0] for b in batch.buckets)):
            if e.spare > 0:
                self._spares.add((e.limit.name, e.key))
        if recovered or not int(existed):  # our counts may be gone from Redis: publish every one again
            sent = {id(e) for e, _, _ in batch.held}
            self._dirty.update(k for k, e in self._entries.items()
                               if e.limit.rate <= 0 and (e.count or e.spare) and id(e) not in sent)
            if self._dirty:
                self._wake.set()

    def _done(self, batch: _Batch) -> None:
        for e in (*(b[0] for b in batch.held), *(b[0] for b in batch.buckets)):
            e.inflight = False
        flight, self._flight = self._flight, None
        for waiter in (*batch.waiters, *([flight] if flight is not None else [])):
            if not waiter.done():
                waiter.set_result(None)

    def _sweep(self, now: float, force: bool = False) -> None:
        """Forget keys with nothing held, leased or reserved, idle for 10 s (every 10 s, or when there are too
        many)."""
        if not force and now - self._swept < 10:
            return
        self._swept = now
        for k, e in list(self._entries.items()):
            if not (e.count or e.spare or e.spent or e.inflight or k in self._dirty) and now - e.used > 10:
                del self._entries[k]
