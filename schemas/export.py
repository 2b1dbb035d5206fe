"""Generate the JSON Schema files in ``schemas/json`` from the pydantic models, or check they are fresh.

The generic contracts are this package's; each game's shapes are given by the caller (``airship schemas``
passes those of the registered built-in games, :func:`services.games.registry.builtin_schemas`), so this
package still depends on nothing in ``services/``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from schemas.envelopes import CommandEnvelope, CommandResult, EventEnvelope, MatchMeta, ViewRecord
from schemas.game_schemas import GameSchemas
from schemas.gateway import CLIENT_MESSAGES, SERVER_MESSAGES, TextedEventMessage
from schemas.legal import Choice

JSON_DIR = Path(__file__).parent / "json"
ENVELOPES: tuple[type[BaseModel], ...] = (CommandEnvelope, EventEnvelope, CommandResult, MatchMeta, ViewRecord)


def _schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema()


def _by_type(models: dict[str, type[BaseModel]]) -> dict[str, Any]:
    return {name: _schema(model) for name, model in sorted(models.items())}


def documents(games: Mapping[str, GameSchemas]) -> dict[str, dict[str, Any]]:
    """Relative path -> JSON document, for every file that belongs in ``schemas/json``: the generic contracts
    and the shapes of ``games`` (name -> its schemas)."""
    docs: dict[str, dict[str, Any]] = {}
    for model in ENVELOPES:
        docs[f"envelopes/{model.__name__}.json"] = _schema(model)
    docs["legal_choice.json"] = _schema(Choice)  # one item of a view record's ``legal``
    for message in (*CLIENT_MESSAGES, *SERVER_MESSAGES):  # the gateway's WebSocket messages, one file each
        kind = message.model_fields["kind"].annotation.__args__[0]  # type: ignore[union-attr]
        side = "client" if message in CLIENT_MESSAGES else "server"
        variant = "-with-text" if message is TextedEventMessage else ""  # (an event of a `texts` subscription)
        docs[f"ws/{side}-{kind}{variant}.json"] = _schema(message)
    for name, game in sorted(games.items()):
        docs[f"{name}/options.json"] = _schema(game.options)
        docs[f"{name}/commands.json"] = {
            "title": f"{name} commands",
            "description": "Command type -> JSON Schema of its body (CommandEnvelope.body).",
            "commands": _by_type(game.commands),
        }
        docs[f"{name}/events.json"] = {
            "title": f"{name} events",
            "description": "Event type -> JSON Schema of its body (EventEnvelope.body or .redacted).",
            "events": _by_type(game.events),
        }
        docs[f"{name}/view.json"] = _schema(game.view)
    return docs


def render(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"


def export(games: Mapping[str, GameSchemas], out: Path = JSON_DIR) -> list[Path]:
    written = []
    for rel, doc in documents(games).items():
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(doc))
        written.append(path)
    return written


def stale(games: Mapping[str, GameSchemas], out: Path = JSON_DIR) -> list[str]:
    """Files that are missing, different, or no longer generated."""
    docs = documents(games)
    problems = [rel for rel, doc in docs.items() if not (out / rel).exists() or (out / rel).read_text() != render(doc)]
    existing = {str(p.relative_to(out)) for p in out.rglob("*.json")}
    problems += sorted(existing - set(docs))
    return problems
