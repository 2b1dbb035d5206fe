"""The built-in games, registered in ``GAMES``. One line per game."""

from __future__ import annotations

from services.games import register
from services.games.moderne_zeiten import GAME as MODERNE_ZEITEN

register(MODERNE_ZEITEN)
