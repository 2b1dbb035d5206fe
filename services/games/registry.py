"""The built-in games, registered in ``GAMES``. One line per game."""

from __future__ import annotations

from services.games import register
from services.games.modern_world import GAME as MODERN_WORLD

register(MODERN_WORLD)
