"""Every game's schemas, keyed by game name. One line per game."""

from __future__ import annotations

from schemas.game_schemas import GameSchemas

GAME_SCHEMAS: dict[str, GameSchemas] = {}

from schemas.moderne_zeiten import SCHEMAS as MODERNE_ZEITEN  # noqa: E402

GAME_SCHEMAS["moderne-zeiten"] = MODERNE_ZEITEN
