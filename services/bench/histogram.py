"""A small HDR-style histogram: counts in log-linear buckets, never a list of the values.

Values are non-negative integers (the benches record microseconds). Below ``2**precision_bits`` every
value has its own bucket; above, each power-of-two range ``[2**e, 2**(e+1))`` is cut into
``2**precision_bits`` equal buckets, so a bucket is never wider than ``1 / 2**precision_bits`` of the
values in it (0.8 % with the default 7 bits), whatever the range. A percentile is the highest value of
the bucket holding that rank (as HdrHistogram reports it), capped at the largest value recorded: it is
never below the exact nearest-rank percentile and never above it by more than one bucket width.

Histograms of several processes merge by adding counts (:meth:`merge`; :meth:`as_dict` and
:meth:`from_dict` carry them between processes as JSON).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any


class Histogram:
    def __init__(self, precision_bits: int = 7) -> None:
        if not 1 <= precision_bits <= 16:
            raise ValueError("precision_bits must be 1 to 16")
        self.bits = precision_bits
        self.counts: dict[int, int] = {}
        self.count = 0
        self.total = 0
        self.min: int | None = None
        self.max = 0

    # -- buckets ---------------------------------------------------------------------------------
    def index(self, value: int) -> int:
        """The bucket of ``value``."""
        sub = 1 << self.bits
        if value < sub:
            return value
        shift = value.bit_length() - 1 - self.bits
        return sub + shift * sub + (value >> shift) - sub

    def bounds(self, index: int) -> tuple[int, int]:
        """The lowest and the highest value of a bucket."""
        sub = 1 << self.bits
        if index < sub:
            return index, index
        shift, offset = divmod(index - sub, sub)
        low = (sub + offset) << shift
        return low, low + (1 << shift) - 1

    # -- recording -------------------------------------------------------------------------------
    def record(self, value: int | float, count: int = 1) -> None:
        v = max(0, int(value))
        i = self.index(v)
        self.counts[i] = self.counts.get(i, 0) + count
        self.count += count
        self.total += v * count
        self.min = v if self.min is None else min(self.min, v)
        self.max = max(self.max, v)

    def record_all(self, values: Iterable[int | float]) -> None:
        for value in values:
            self.record(value)

    def merge(self, other: Histogram) -> None:
        if other.bits != self.bits:
            raise ValueError("histograms of different precision")
        for i, n in other.counts.items():
            self.counts[i] = self.counts.get(i, 0) + n
        self.count += other.count
        self.total += other.total
        if other.min is not None:
            self.min = other.min if self.min is None else min(self.min, other.min)
        self.max = max(self.max, other.max)

    # -- reading ---------------------------------------------------------------------------------
    def value_at(self, q: float) -> int:
        """The ``q`` quantile (0 < q <= 1): the highest value of the bucket holding rank ``ceil(q * count)``,
        capped at the largest value recorded; 0 when empty."""
        if not self.count:
            return 0
        rank = max(1, math.ceil(q * self.count))
        seen = 0
        for i in sorted(self.counts):
            seen += self.counts[i]
            if seen >= rank:
                return min(self.bounds(i)[1], self.max)
        return self.max

    @property
    def mean(self) -> float:
        return self.total / self.count if self.count else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"bits": self.bits, "counts": {str(i): n for i, n in self.counts.items()}, "count": self.count,
                "total": self.total, "min": self.min, "max": self.max}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Histogram:
        h = cls(int(data["bits"]))
        h.counts = {int(i): int(n) for i, n in data["counts"].items()}
        h.count, h.total, h.max = int(data["count"]), int(data["total"]), int(data["max"])
        h.min = None if data["min"] is None else int(data["min"])
        return h
