"""Match log files: JSON lines and msgpack, with and without the header, and clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import msgpack
import pytest

from services.replay.files import LogFileError, MatchLog, guess_format, read_match, write_match
from tests.replay.matches import finished_match


@pytest.fixture(scope="module")
def log() -> MatchLog:
    return finished_match(seed=3)[1]


@pytest.mark.parametrize("fmt", ["jsonl", "msgpack"])
def test_a_log_round_trips_without_loss(tmp_path: Path, log: MatchLog, fmt: str) -> None:
    path = tmp_path / f"m.{fmt}"
    assert write_match(path, log, fmt) == len(log.events)  # type: ignore[arg-type]
    again = read_match(path)
    assert again == log
    assert again.meta is not None and again.meta.seed == 3 and again.meta.credential_hashes == {}
    assert any(e.command is not None for e in again.events)
    assert any(e.visible_to is not None for e in again.events)


def test_the_header_comes_first_and_each_event_is_one_line(tmp_path: Path, log: MatchLog) -> None:
    path = tmp_path / "m.jsonl"
    write_match(path, log)
    first, *rest = path.read_text().splitlines()
    assert json.loads(first) == {"kind": "meta", "match_id": "m1", "game": "nim", "seats": 2,
                                 "options": {"max_take": 3}, "seed": 3, "status": "finished", "reveal_log": True}
    assert [json.loads(line)["version"] for line in rest] == list(range(1, len(log.events) + 1))


def test_a_file_without_header_is_read_and_knows_its_game(tmp_path: Path, log: MatchLog) -> None:
    path = tmp_path / "old.jsonl"
    write_match(path, MatchLog(None, log.events))
    again = read_match(path)
    assert again.meta is None and again.events == log.events
    assert again.game == "nim" and again.seats == 2 and again.match_id == "m1"


def test_format_is_guessed_from_suffix_or_content(tmp_path: Path, log: MatchLog) -> None:
    path = tmp_path / "noext"
    write_match(path, log, "msgpack")
    assert guess_format(path, path.read_bytes()[:8]) == "msgpack"
    assert read_match(path) == log
    assert guess_format(Path("x.jsonl")) == "jsonl" and guess_format(Path("x.msgpack")) == "msgpack"


@pytest.mark.parametrize(("content", "message"), [
    ('{"kind": "meta"}\n', "line 1: invalid match header"),
    ('{"match_id": "a", "version": 1, "type": "T", "body": {}, "schema_version": 1}\n{"kind": "meta"}\n',
     "line 2: a match header must come first"),
    ('\n{"match_id": "a", "version": 1, "type": "T", "body": {}}\nnot json\n', "line 3: not JSON"),
    ('{"match_id": "a", "version": "x", "type": "T", "body": {}}\n', "line 1: invalid event"),
    ('{"match_id": "a", "version": 1, "type": "T", "body": {}, "schema_version": 99}\n', "newer airship"),
    ("[1, 2]\n", "line 1: an event must be a map"),
])
def test_broken_files_are_refused_naming_the_line(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(LogFileError, match=message):
        read_match(path)


def test_broken_msgpack_names_the_object(tmp_path: Path) -> None:
    path = tmp_path / "bad.msgpack"
    path.write_bytes(msgpack.packb({"kind": "meta", "match_id": "a", "game": "nim", "seats": 2, "seed": 1})
                     + msgpack.packb("text"))
    with pytest.raises(LogFileError, match="object 2"):
        read_match(path)


def test_a_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(LogFileError, match="cannot read"):
        read_match(tmp_path / "nope.jsonl")
