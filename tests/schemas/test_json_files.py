"""The checked-in JSON Schema files are what the models generate."""

from __future__ import annotations

from pathlib import Path

from schemas import export
from services.games.registry import builtin_registrations, builtin_schemas

GAMES = builtin_schemas()


def test_checked_in_json_schemas_are_fresh() -> None:
    problems = export.stale(GAMES)
    assert problems == [], f"stale JSON Schema files {problems}: run `airship schemas export`"


def test_stale_detects_an_edited_and_an_orphan_file(tmp_path: Path) -> None:
    export.export(GAMES, tmp_path)
    assert export.stale(GAMES, tmp_path) == []
    target = tmp_path / "envelopes" / "CommandEnvelope.json"
    target.write_text(target.read_text().replace("command_id", "cmd_id"))
    (tmp_path / "envelopes" / "Gone.json").write_text("{}")
    assert export.stale(GAMES, tmp_path) == ["envelopes/CommandEnvelope.json", "envelopes/Gone.json"]


def test_every_built_in_game_has_schemas_of_its_name() -> None:
    registrations = builtin_registrations()
    assert registrations and all(r.schemas is not None and r.schemas.game == r.name for r in registrations)
    assert sorted(GAMES) == [r.name for r in registrations]


def test_checked_in_openapi_document_is_fresh() -> None:
    from services.gateway import openapi

    assert not openapi.stale(), "schemas/openapi.json is stale: run `airship schemas export`"


def test_openapi_stale_detects_an_edit(tmp_path: Path) -> None:
    from services.gateway import openapi

    path = tmp_path / "openapi.json"
    openapi.export(path)
    assert not openapi.stale(path)
    path.write_text(path.read_text().replace("idempotency_key", "key"))
    assert openapi.stale(path)


def test_every_websocket_message_kind_has_a_schema_file() -> None:
    from schemas.gateway import CLIENT_MESSAGES, SERVER_MESSAGES

    files = {rel for rel in export.documents(GAMES) if rel.startswith("ws/")}
    assert len(files) == len(CLIENT_MESSAGES) + len(SERVER_MESSAGES)
    assert {"ws/client-subscribe.json", "ws/client-command.json", "ws/server-view.json",
            "ws/server-result.json", "ws/server-error.json"} <= files
