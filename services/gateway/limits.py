"""The gateway's limits (docs/gateway.md, "Limits"): per seat token and per client address, the request rate,
the open WebSockets and the waiting long-polls, all shared by every gateway replica (:class:`GatewayLimits`, on
:mod:`services.gateway.shared_limits`); and :class:`RateLimiter`, a token bucket kept in the process, for
what is limited per socket (messages on one WebSocket)."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import redis.asyncio as aioredis

from services import metrics
from services.gateway.shared_limits import Limit, SharedLimits
from services.gateway.wire import Refused
from services.settings import Settings

BURST_S = 4  # a rate limit's burst: this many seconds' worth
# What a request costs against its address's and token's rates, in units of about a millisecond of gateway CPU
# (measured per route; docs/gateway.md "Limits"): a client at its limit takes a bounded share of the gateway
# whatever it asks for. Routes not named cost 1. Reads that are cached cost little after the first.
COSTS: dict[tuple[str, str], int] = {
    ("GET", "/matches"): 3,  # a lobby page (cached a second)
    ("POST", "/matches"): 5,  # a game set up and a script run
    ("POST", "/matches/{match_id}/seats"): 3,
    ("POST", "/matches/{match_id}/commands"): 2,
    ("POST", "/matches/{match_id}/abandon"): 3,
    ("POST", "/matches/{match_id}/bots"): 3,
    ("POST", "/matches/{match_id}/rematch"): 5,  # as a creation
    ("GET", "/matches/{match_id}/log"): 4,  # plus LOG_EVENTS_PER_UNIT below, unless a finished log is cached
    ("GET", "/matches/{match_id}/replay"): 10,  # a replay is built (kept once built)
    ("GET", "/matches/{match_id}/replay/{version}"): 3,
    ("POST", "/players"): 5,
    ("POST", "/ladder/{game}/matches"): 5,
    ("GET", "/ladder/{game}"): 3,
    ("GET", "/ladder/{game}/players/{name}"): 3,
    ("POST", "/arena/{game}/queue"): 3,
    ("GET", "/docs"): 2,
}
TARPIT_S = 1.0  # the longest a refusal is held back (tarpit)
TARPIT_MIN_S = 0.25  # and the shortest: a refused flood sends at most 4 requests a second per connection
LOG_EVENTS_PER_UNIT = 100  # a log costs one unit more per this many events it reads


async def tarpit(wait_s: float) -> None:
    """Hold a refusal back until the client could have been admitted (at most :data:`TARPIT_S`): a client that
    ignores ``Retry-After`` is paced like one that honours it, so a flood of refused requests costs the flooder
    its connections' time, not the gateway's CPU (its connections per address are capped: services.gateway.conns)."""
    await asyncio.sleep(min(max(wait_s, TARPIT_MIN_S), TARPIT_S))


def cost_of(method: str, path: str) -> int:
    """The cost of a request to the route ``path`` (its template, e.g. ``/matches/{match_id}/log``)."""
    return COSTS.get((method, path), 1)


PLAYERS_PER_ADDRESS = 4  # the players of one address together may create this many times one player's quota


@dataclass(slots=True)
class Bucket:
    tokens: float
    stamp: float


class RateLimiter:
    """``rate_per_s`` requests per second per key, bursts of ``burst``; keys idle for a minute are dropped."""

    def __init__(self, rate_per_s: float, burst: int, max_keys: int = 100_000) -> None:
        self.rate_per_s = rate_per_s
        self.burst = burst
        self.max_keys = max_keys
        self._buckets: dict[str, Bucket] = {}
        self._swept = time.monotonic()

    def retry_after_s(self, key: str, cost: float = 1.0) -> float:
        """0 when the request may go (and is counted), else how long to wait."""
        now = time.monotonic()
        if now - self._swept > 60 or len(self._buckets) > self.max_keys:
            self._sweep(now)
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = Bucket(float(self.burst), now)
        bucket.tokens = min(float(self.burst), bucket.tokens + (now - bucket.stamp) * self.rate_per_s)
        bucket.stamp = now
        if bucket.tokens >= cost:
            bucket.tokens -= cost
            return 0.0
        return (cost - bucket.tokens) / self.rate_per_s

    def check(self, key: str, what: str) -> None:
        wait = self.retry_after_s(key)
        if wait > 0:
            seconds = max(1, math.ceil(wait))
            raise Refused(429, "rate_limited", f"too many requests for this {what}; retry in {seconds} s",
                          headers={"Retry-After": str(seconds)})

    def _sweep(self, now: float) -> None:
        self._swept = now
        full = self.burst / self.rate_per_s
        self._buckets = {k: b for k, b in self._buckets.items() if now - b.stamp < max(60.0, full)}


class GatewayLimits:
    """Every limit a gateway applies per seat token and per client address (an address key from
    :func:`services.gateway.addresses.address_key`), shared across replicas. Refusals raise :class:`Refused`
    (429, ``Retry-After``) or answer False (sockets: the caller closes with 1008), and are counted in
    ``airship_gateway_limit_refusals_total{limit}``."""

    def __init__(self, r: aioredis.Redis, settings: Settings, ident: str | None = None) -> None:
        s = settings
        self.shared = SharedLimits(r, s.key_prefix, ident, idle_s=s.gateway_limits_idle_ms / 1000)
        self.token_rate = Limit("token_rate", s.gateway_token_rps * BURST_S, s.gateway_token_rps, "seat token")
        self.address_rate = Limit("address_rate", s.gateway_addr_rps * BURST_S, s.gateway_addr_rps, "address")
        self.token_sockets = Limit("token_sockets", s.gateway_sockets, what="seat token")
        self.address_sockets = Limit("address_sockets", s.gateway_addr_sockets, what="address")
        self.token_longpolls = Limit("token_longpolls", s.gateway_longpolls, what="seat token")
        self.address_longpolls = Limit("address_longpolls", s.gateway_addr_longpolls, what="address")
        # quotas of match creation (docs/gateway.md, "Quotas"): per address without an API key, per player with one
        # (and all players together from one address: PLAYERS_PER_ADDRESS times a player's)
        self.address_creates = Limit("address_creates", s.gateway_addr_creates, s.gateway_addr_creates_per_h / 3600,
                                     "address (without an API key)")
        self.player_creates = Limit("player_creates", s.gateway_player_creates,
                                    s.gateway_player_creates_per_h / 3600, "player")
        self.address_player_creates = Limit("address_player_creates", s.gateway_player_creates * PLAYERS_PER_ADDRESS,
                                            s.gateway_player_creates_per_h * PLAYERS_PER_ADDRESS / 3600,
                                            "address (all its players)")
        for limit in (self.token_rate, self.address_rate, self.token_sockets, self.address_sockets,
                      self.token_longpolls, self.address_longpolls, self.address_creates, self.player_creates,
                      self.address_player_creates):
            metrics.GATEWAY_LIMIT_REFUSALS.labels(limit.name).inc(0)

    async def start(self) -> None:
        await self.shared.start()

    async def close(self) -> None:
        await self.shared.close()

    async def rate(self, limit: Limit, key: str, cost: int = 1) -> None:
        """Count one request of ``key`` costing ``cost`` units (:data:`COSTS`); 429 with ``Retry-After`` once it
        is over ``limit``."""
        wait = await self.shared.take(limit, key, cost)
        if wait > 0:
            metrics.GATEWAY_LIMIT_REFUSALS.labels(limit.name).inc()
            await tarpit(wait)
            seconds = max(1, math.ceil(wait))
            raise Refused(429, "rate_limited", f"too many requests for this {limit.what}; retry in {seconds} s",
                          headers={"Retry-After": str(seconds)})

    async def creation(self, address: str, player: str | None) -> None:
        """Count one match created by ``address`` (``player``: with that player's API key) against the creation
        quotas; 429 ``quota_exceeded`` with ``Retry-After`` past them. A quota of 0 is no quota."""
        if player is None:
            checks = [(self.address_creates, address)]
        else:
            checks = [(self.player_creates, player), (self.address_player_creates, address)]
        for limit, key in checks:
            if limit.limit <= 0 or limit.rate <= 0:
                continue
            wait = await self.shared.take(limit, key)
            if wait > 0:
                metrics.GATEWAY_LIMIT_REFUSALS.labels(limit.name).inc()
                await tarpit(wait)
                seconds = max(1, math.ceil(wait))
                per_h = round(limit.rate * 3600)
                raise Refused(429, "quota_exceeded",
                              f"this {limit.what} has created its quota of matches ({int(limit.limit)} at once, then "
                              f"{per_h} an hour); retry in {seconds} s, or join an open match "
                              "(GET /matches?status=open)", headers={"Retry-After": str(seconds)})

    async def token(self, token: str, cost: int = 1) -> None:
        await self.rate(self.token_rate, token, cost)

    async def address(self, address: str, cost: int = 1) -> None:
        await self.rate(self.address_rate, address, cost)

    async def allowed(self, limit: Limit, key: str, cost: int = 1) -> bool:
        """The rate check without an exception (WebSocket connections and messages are refused instead)."""
        wait = await self.shared.take(limit, key, cost)
        if wait > 0:
            metrics.GATEWAY_LIMIT_REFUSALS.labels(limit.name).inc()
            await tarpit(wait)
        return wait <= 0

    async def acquire(self, limit: Limit, key: str) -> bool:
        """Hold one of ``key``'s ``limit`` (an open socket, a waiting long-poll); False (counted) when it holds
        all of them across the gateways. Give it back with :meth:`release`."""
        if await self.shared.acquire(limit, key):
            return True
        metrics.GATEWAY_LIMIT_REFUSALS.labels(limit.name).inc()
        return False

    def release(self, limit: Limit, key: str) -> None:
        self.shared.release(limit, key)

    @asynccontextmanager
    async def waiting(self, token: str | None, address: str) -> AsyncIterator[None]:
        """Hold a long-poll of ``token`` (None: a request without one) and ``address`` while the block runs;
        429 when either holds all of theirs."""
        held: list[tuple[Limit, str]] = []
        try:
            for limit, key in ((self.token_longpolls, token), (self.address_longpolls, address)):
                if key is None:
                    continue
                if not await self.acquire(limit, key):
                    raise Refused(429, "rate_limited", f"too many waiting requests for this {limit.what}; "
                                  "wait for one to end", headers={"Retry-After": "1"})
                held.append((limit, key))
            yield
        finally:
            for limit, key in held:
                self.release(limit, key)
