"""The derived rng: deterministic per (seed, version), lazily seeded, identical to random.Random."""

from __future__ import annotations

import random

from services.games.rng import derive_rng, derive_seed


def test_same_seed_and_version_give_the_same_numbers() -> None:
    a, b = derive_rng(7, 3), derive_rng(7, 3)
    assert [a.randint(1, 6) for _ in range(20)] == [b.randint(1, 6) for _ in range(20)]


def test_versions_give_different_streams() -> None:
    assert derive_seed(7, 3) != derive_seed(7, 4) and derive_seed(7, 3) != derive_seed(8, 3)


def test_lazy_rng_draws_exactly_what_random_random_draws() -> None:
    lazy, plain = derive_rng(11, 5), random.Random(derive_seed(11, 5))
    deck_a, deck_b = list(range(50)), list(range(50))
    lazy.shuffle(deck_a)
    plain.shuffle(deck_b)
    assert deck_a == deck_b
    assert [lazy.random() for _ in range(5)] == [plain.random() for _ in range(5)]
    assert lazy.choice("abcdef") == plain.choice("abcdef") and lazy.getrandbits(64) == plain.getrandbits(64)


def test_reseeding_explicitly_still_works() -> None:
    lazy = derive_rng(1, 1)
    lazy.seed(99)
    assert lazy.random() == random.Random(99).random()
