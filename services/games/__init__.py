"""The games. Pure rules only: no I/O, no clock, no global random.

``GAMES`` maps a game's name to the object implementing :class:`services.games.base.Game`.
"""

from __future__ import annotations

from typing import Any

from services.games.base import Command, Event, Game, Outcome, replay
from services.games.errors import BadCommand, BadOptions, GameOver, IllegalMove, NotYourTurn, Rejected

GAMES: dict[str, Game[Any]] = {}


def register(game: Game[Any]) -> Game[Any]:
    GAMES[game.name] = game
    return game


def get_game(name: str) -> Game[Any]:
    try:
        return GAMES[name]
    except KeyError:
        raise BadOptions(f"unknown game '{name}'; known games: {', '.join(sorted(GAMES))}") from None


def _load_builtin() -> None:
    from services.games import registry  # noqa: F401  (registers the built-in games)


__all__ = [
    "GAMES", "BadCommand", "BadOptions", "Command", "Event", "Game", "GameOver", "IllegalMove",
    "NotYourTurn", "Outcome", "Rejected", "get_game", "register", "replay",
]

_load_builtin()
