"""The games the shared suites check: every built-in game, read from its registration
(services/games/registration.py), never from a list written here, and the test games registered whole. A built-in
game that does not load is still listed (by its entry point), so its tests fail rather than vanish."""

from __future__ import annotations

from services.games.registration import TestParameters
from services.games.registry import REGISTRATIONS, builtin_games, registration_of

GAMES = builtin_games()
"""The built-in games: what the whole-stack tests play (their processes know only these)."""
SUITE_GAMES = sorted({*GAMES, *(name for name, r in REGISTRATIONS.items() if r.schemas is not None)})
"""The built-in games and the test games registered whole (with their schemas; tests/conftest.py registers
``tests/games/liars_dice``): what the in-process suites (conformance, secrecy, abandon, views, legal.js) check."""


def parameters(game: str) -> TestParameters:
    return registration_of(game).tests


def stack_seats(game: str) -> int:
    """The table of the whole-stack tests (the registration's ``tests.seats``, else the smallest)."""
    return registration_of(game).table_seats()


def smallest_table(game: str) -> int:
    """The fewest seats the game allows: the browser and arena tests keep their matches short."""
    return registration_of(game).game.min_seats
