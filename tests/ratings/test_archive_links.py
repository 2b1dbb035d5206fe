"""The seat -> player links in archive files (no Redis): written in the header only when a match has links, read
back from JSON lines and msgpack alike, old headers (without them) read as before, and an archive written before
headers carried links is completed by the archiver instead of refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schemas.envelopes import EventEnvelope, MatchMeta
from services.archive.archiver import _same_header
from services.archive.files import read_archive, write_archive
from services.replay.files import MatchLog, jsonl_lines, read_match, write_match

META = MatchMeta(match_id="m1", game="nim", seats=2, status="finished", seed=7)
EVENTS = [EventEnvelope(match_id="m1", version=1, type="MatchStarted", body={"game": "nim", "seats": 2})]
LINKED = META.model_copy(update={"players": {0: "ann", 1: "bob"}, "created_ms": 1_700_000_000_123})


def test_a_header_without_links_is_what_it_was() -> None:
    (line, *_) = jsonl_lines(MatchLog(META, EVENTS))
    assert set(json.loads(line)) == {"kind", "match_id", "game", "seats", "options", "seed", "status", "reveal_log"}


@pytest.mark.parametrize("name", ["m1.jsonl", "m1.msgpack"])
def test_links_are_written_and_read_back(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    write_match(path, MatchLog(LINKED, EVENTS))
    back = read_match(path)
    assert back.players == {0: "ann", 1: "bob"} and back.meta is not None
    assert back.meta.created_ms == 1_700_000_000_123
    assert back == MatchLog(LINKED, EVENTS)


def test_an_old_archive_reads_without_links(tmp_path: Path) -> None:
    path = tmp_path / "0" / "m1.jsonl.gz"
    write_archive(path, MatchLog(META, EVENTS))
    old = read_archive(path)
    assert old is not None and old.players == {} and old.meta is not None and old.meta.created_ms is None


def test_the_archiver_completes_a_header_written_before_links() -> None:
    (old, *_) = jsonl_lines(MatchLog(META, EVENTS))
    (new, *_) = jsonl_lines(MatchLog(LINKED, EVENTS))
    assert _same_header([old], [new]) and _same_header([new], [new])
    (other, *_) = jsonl_lines(MatchLog(LINKED.model_copy(update={"seed": 8}), EVENTS))
    assert not _same_header([old], [other])  # another match's header is still refused
    (linked_other, *_) = jsonl_lines(MatchLog(LINKED.model_copy(update={"players": {0: "cy", 1: "bob"}}), EVENTS))
    assert not _same_header([new], [linked_other])  # links once written are never replaced
