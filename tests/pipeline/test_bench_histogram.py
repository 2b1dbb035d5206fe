"""The bench's HDR-style histogram: its percentiles stay within one bucket of the exact ones."""

from __future__ import annotations

import math
import random

import pytest

from services.bench.histogram import Histogram


def exact(values: list[int], q: float) -> int:
    """The nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(1, math.ceil(q * len(ordered))) - 1]


@pytest.mark.parametrize("seed", range(5))
def test_percentiles_are_within_bucket_precision_of_the_exact_ones(seed: int) -> None:
    rng = random.Random(seed)
    # latencies in microseconds: a log-normal body around 1-3 ms and a long tail up to seconds
    values = [int(rng.lognormvariate(7.5, 0.8)) for _ in range(20_000)]
    values += [rng.randrange(10**5, 3 * 10**6) for _ in range(200)]
    h = Histogram()
    h.record_all(values)
    assert h.count == len(values) and h.max == max(values) and h.min == min(values)
    assert h.mean == pytest.approx(sum(values) / len(values))
    for q in (0.001, 0.1, 0.5, 0.9, 0.99, 0.999, 0.9999, 1.0):
        want, got = exact(values, q), h.value_at(q)
        assert want <= got <= want + max(1, want >> h.bits), (q, want, got)


def test_buckets_tile_the_values_and_small_values_are_exact() -> None:
    h = Histogram(precision_bits=4)
    previous_high = -1
    for index in range(h.index(10**7) + 1):
        low, high = h.bounds(index)
        assert low == previous_high + 1 and h.index(low) == index == h.index(high)
        assert high - low <= max(0, low >> h.bits)
        previous_high = high
    h.record_all([3, 3, 7, 0])
    assert [h.value_at(q) for q in (0.25, 0.5, 0.75, 1.0)] == [0, 3, 3, 7]


def test_merged_histograms_equal_one_histogram_of_every_value() -> None:
    rng = random.Random(7)
    parts = [[rng.randrange(1, 10**6) for _ in range(1000)] for _ in range(3)]
    whole = Histogram()
    whole.record_all(v for part in parts for v in part)
    merged = Histogram()
    for part in parts:
        h = Histogram()
        h.record_all(part)
        merged.merge(Histogram.from_dict(h.as_dict()))  # as the bench carries them between processes
    assert merged.as_dict() == whole.as_dict()
    assert Histogram().value_at(0.5) == 0
