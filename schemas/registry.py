"""Every game's schemas, keyed by game name. One line per game."""

from __future__ import annotations

from schemas.game_schemas import GameSchemas

GAME_SCHEMAS: dict[str, GameSchemas] = {}

from schemas.mad_zeppelin import SCHEMAS as MAD_ZEPPELIN_SCHEMAS  # noqa: E402

GAME_SCHEMAS["mad-zeppelin"] = MAD_ZEPPELIN_SCHEMAS
