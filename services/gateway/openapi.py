"""The gateway's OpenAPI document, generated from the app and checked in as ``schemas/openapi.json``
(``airship schemas export`` writes it, ``airship schemas check`` fails when it is stale)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

OPENAPI_PATH = Path(__file__).resolve().parents[2] / "schemas" / "openapi.json"


def document() -> dict[str, Any]:
    from services.gateway.app import create_app
    from services.settings import Settings

    return create_app(Settings()).openapi()


def render() -> str:
    return json.dumps(document(), indent=2, sort_keys=True) + "\n"


def export(path: Path = OPENAPI_PATH) -> Path:
    path.write_text(render())
    return path


def stale(path: Path = OPENAPI_PATH) -> bool:
    return not path.exists() or path.read_text() != render()
