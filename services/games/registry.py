"""The built-in games, registered in ``GAMES``. One line per game."""

from __future__ import annotations
