"""Deterministic randomness: the rng for a decision derives from the match seed and the version.

A decision retried after a crash (same seed, same version) therefore produces the same events.
"""

from __future__ import annotations

import hashlib
import random


def derive_seed(match_seed: int, version: int) -> int:
    digest = hashlib.blake2b(f"{match_seed}:{version}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def derive_rng(match_seed: int, version: int) -> random.Random:
    """The rng `decide` (or `setup`, at version 0) gets for a match at ``version``."""
    return random.Random(derive_seed(match_seed, version))


def roll_die(rng: random.Random, sides: int = 6) -> int:
    return rng.randint(1, sides)
