"""Every game's schemas, keyed by game name. One line per game."""

from __future__ import annotations

from schemas.game_schemas import GameSchemas
from schemas.modern_world import SCHEMAS as MODERN_WORLD_SCHEMAS

GAME_SCHEMAS: dict[str, GameSchemas] = {}
GAME_SCHEMAS["modern-world"] = MODERN_WORLD_SCHEMAS
