"""The built-in games among the registered ones: those whose game object is defined under
``services.games.`` (test games and the benchmark game live elsewhere). Chaos runs, benchmarks and the
fuzz and hidden-information tests loop over these, so a game is covered as soon as it is registered."""

from __future__ import annotations

from typing import Any

from services.games import GAMES
from services.games.base import Game


def is_builtin(game: Game[Any]) -> bool:
    return type(game).__module__.startswith("services.games.")


def builtin_games() -> list[str]:
    return sorted(name for name, game in GAMES.items() if is_builtin(game))


def default_seats(game: Game[Any]) -> int:
    """A typical table: four players where the game allows it."""
    return min(max(4, game.min_seats), game.max_seats)
