"""Every game's schemas, keyed by game name."""

from __future__ import annotations

from schemas.game_schemas import GameSchemas
from schemas.mad_zeppelin import SCHEMAS as MAD_ZEPPELIN
from schemas.modern_world import SCHEMAS as MODERN_WORLD
from schemas.moderne_zeiten import SCHEMAS as MODERNE_ZEITEN

GAME_SCHEMAS: dict[str, GameSchemas] = {
    "moderne-zeiten": MODERNE_ZEITEN,
    "modern-world": MODERN_WORLD,
    "mad-zeppelin": MAD_ZEPPELIN,
}
