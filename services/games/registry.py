"""The built-in games, registered in ``GAMES``. One line per game."""

from __future__ import annotations

from services.games import register
from services.games.mad_zeppelin import GAME as MAD_ZEPPELIN

register(MAD_ZEPPELIN)
