"""The games. Pure rules only: no I/O, no clock, no global random.

``GAMES`` maps a game's name to the object implementing :class:`services.games.base.Game`. The built-in
games are declared as entry points of the group ``airship.games`` in ``pyproject.toml`` and loaded on first
use; other games (test games, the benchmark game) are added with :func:`register` by the code that uses
them (see :mod:`services.games.registry`).
"""

from __future__ import annotations

from services.games.base import Command, Event, Game, Outcome, replay
from services.games.errors import BadCommand, BadOptions, GameOver, IllegalMove, NotYourTurn, Rejected
from services.games.registry import GAMES, builtin_games, default_seats, get_game, register

__all__ = [
    "GAMES", "BadCommand", "BadOptions", "Command", "Event", "Game", "GameOver", "IllegalMove",
    "NotYourTurn", "Outcome", "Rejected", "builtin_games", "default_seats", "get_game", "register", "replay",
]
