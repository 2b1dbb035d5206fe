"""Deterministic randomness: the rng for a decision derives from the match seed and the version.

A decision retried after a crash (same seed, same version) therefore produces the same events.
"""

from __future__ import annotations

import hashlib
import random


def derive_seed(match_seed: int, version: int) -> int:
    digest = hashlib.blake2b(f"{match_seed}:{version}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


class LazyRandom(random.Random):
    """A ``random.Random`` that seeds itself on first use.

    Seeding the Mersenne Twister costs about 8 µs, more than most decisions; most commands (bids,
    passes, plays) draw nothing, so the rng is seeded only when a die is rolled or a stack shuffled.
    The numbers drawn are exactly those of ``random.Random(seed)``.
    """

    def __init__(self, seed: int) -> None:
        self._pending: int | None = seed
        super().__init__(seed)

    def seed(self, a: object = None, version: int = 2) -> None:
        if getattr(self, "_pending", None) is not None and a == self._pending:
            return  # deferred until first use
        self._pending = None
        super().seed(a, version)  # type: ignore[arg-type]

    def _ensure_seeded(self) -> None:
        pending = self._pending
        if pending is not None:
            self._pending = None
            super().seed(pending)

    def random(self) -> float:
        self._ensure_seeded()
        return super().random()

    def getrandbits(self, k: int) -> int:
        self._ensure_seeded()
        return super().getrandbits(k)

    def getstate(self) -> tuple[int, ...]:
        self._ensure_seeded()
        return super().getstate()


def derive_rng(match_seed: int, version: int) -> random.Random:
    """The rng `decide` (or `setup`, at version 0) gets for a match at ``version``."""
    return LazyRandom(derive_seed(match_seed, version))


def roll_die(rng: random.Random, sides: int = 6) -> int:
    return rng.randint(1, sides)
