"""The built-in games, registered in ``GAMES``."""

from __future__ import annotations

from services.games import register
from services.games.mad_zeppelin import GAME as MAD_ZEPPELIN
from services.games.modern_world import GAME as MODERN_WORLD
from services.games.moderne_zeiten import GAME as MODERNE_ZEITEN

register(MODERNE_ZEITEN)
register(MODERN_WORLD)
register(MAD_ZEPPELIN)
