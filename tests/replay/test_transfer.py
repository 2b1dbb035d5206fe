"""``export`` / ``import``: a match moves between a store and files without loss, and replays identically
under a new id (the projector builds the same views)."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.games.errors import BadOptions
from services.pipeline.inprocess import InProcess
from services.replay.files import MatchLog, read_match
from services.replay.stepper import Replay
from services.replay.transfer import export_match, import_log, import_match, load_match
from tests.replay.matches import finished_match


@pytest.mark.parametrize("fmt", ["jsonl", "msgpack"])
def test_export_then_import_under_a_new_id_replays_identically(tmp_path: Path, fmt: str) -> None:
    source, _ = finished_match(seed=9)
    path = tmp_path / f"m.{fmt}"
    assert export_match(source.backend.store, "m1", path) == source.backend.store.version("m1")

    target = InProcess(partitions=3)
    meta = import_match(target.backend.store, path, new_id="copy")
    target.pump()  # the projector builds the imported match's views from the feed
    assert meta.match_id == "copy" and meta.seed == 9 and meta.credential_hashes == {}
    original, copy = source.backend.store.read_log("m1"), target.backend.store.read_log("copy")
    assert [e.model_copy(update={"match_id": "m1"}) for e in copy] == original
    for key in ["public", "0", "1"]:
        mine, theirs = source.backend.views.get_view("m1", key), target.backend.views.get_view("copy", key)
        assert mine is not None and theirs is not None
        assert theirs.model_copy(update={"match_id": "m1"}) == mine
    records = Replay(load_match(target.backend.store, "copy")).records_at()
    assert records == [target.backend.views.get_view("copy", r.key) for r in records]
    assert read_match(path) == load_match(source.backend.store, "m1")


def test_an_imported_unfinished_match_can_be_joined_and_continued(tmp_path: Path) -> None:
    source = InProcess()
    client = source.client()
    client.create_match("nim", 2, seed=4, match_id="half")
    path = tmp_path / "half.jsonl"
    export_match(source.backend.store, "half", path)

    target = InProcess()
    import_match(target.backend.store, path)
    other = target.client()
    seats = dict(other.join("half", s) for s in range(2))
    result = other.call("half", 0, seats[0], "take", {"n": 1})
    assert result.status == "accepted" and result.version == 5


def test_import_refuses_a_file_without_header_and_a_taken_id(tmp_path: Path) -> None:
    source, log = finished_match(seed=2)
    with pytest.raises(BadOptions, match="no match header"):
        import_log(source.backend.store, MatchLog(None, log.events))
    with pytest.raises(BadOptions, match="'m1' is taken"):
        import_log(source.backend.store, log)
    with pytest.raises(BadOptions, match="broken at version 2"):
        import_log(source.backend.store, MatchLog(log.meta, log.events[:1] + log.events[2:]), "new")
    with pytest.raises(BadOptions, match="no match 'nope'"):
        load_match(source.backend.store, "nope")


def test_a_long_log_is_exported_in_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    source, log = finished_match(seed=6)
    monkeypatch.setattr("services.replay.transfer.PAGE", 3)
    assert load_match(source.backend.store, "m1") == log
