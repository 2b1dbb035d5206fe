"""Rate limits (token buckets per seat token and per client address) and the socket count per token.

Kept in the gateway process: each replica limits what reaches it; with N replicas behind a balancer a
client gets at most N times the rate, which still bounds what one client can push into the streams."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from services.gateway.wire import Refused


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


class SocketCounter:
    """Open WebSockets per token, at most ``limit``."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._open: dict[str, int] = {}

    def acquire(self, key: str) -> bool:
        n = self._open.get(key, 0)
        if n >= self.limit:
            return False
        self._open[key] = n + 1
        return True

    def release(self, key: str) -> None:
        n = self._open.get(key, 0) - 1
        if n > 0:
            self._open[key] = n
        else:
            self._open.pop(key, None)
