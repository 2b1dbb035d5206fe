"""The games. Pure rules only: no I/O, no clock, no global random.

A game is one package ``services/games/<game>/`` (rules, wire shapes, bot plug-in, chat adapter, boards, test
parameters) ending in one :class:`~services.games.registration.Registration`, named by one entry point of the
group ``airship.games`` in ``pyproject.toml`` and loaded on first use; other games (test games, the benchmark
game) are added with :func:`register` by the code that uses them (see :mod:`services.games.registry`).
``GAMES`` maps a game's name to its rules, the object implementing :class:`services.games.base.Game`.
"""

from __future__ import annotations

from services.games.base import Command, Event, Game, Outcome, replay
from services.games.errors import BadCommand, BadOptions, GameOver, IllegalMove, NotYourTurn, Rejected
from services.games.registration import Registration
from services.games.registry import GAMES, builtin_games, default_seats, get_game, register, registration_of

__all__ = [
    "GAMES", "BadCommand", "BadOptions", "Command", "Event", "Game", "GameOver", "IllegalMove",
    "NotYourTurn", "Outcome", "Registration", "Rejected", "builtin_games", "default_seats", "get_game", "register",
    "registration_of", "replay",
]
