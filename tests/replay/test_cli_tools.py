"""The CLI paths of ``replay --redis``, ``export`` and ``import``, with the backend factory pointed at an
in-process backend (the same code runs against Redis once it is given a real URL)."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.cli import main
from services.pipeline.inprocess import InProcess
from services.pipeline.memory import MemoryBackend
from tests.replay.matches import finished_match


@pytest.fixture
def backend(monkeypatch: pytest.MonkeyPatch) -> InProcess:
    embedded, _ = finished_match(seed=12)
    monkeypatch.setattr("services.pipeline.backends.open_backend", lambda url, **kw: embedded.backend)
    return embedded


def test_export_import_and_replay_from_the_store(backend: InProcess, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m1.msgpack"
    assert main(["export", "--redis", "redis://x", "--match", "m1", "--out", str(path)]) == 0
    assert "wrote" in capsys.readouterr().err
    assert main(["import", "--redis", "redis://x", "--in", str(path), "--as", "m2"]) == 0
    assert "imported nim match m2" in capsys.readouterr().out
    backend.pump()
    assert backend.backend.views.get_view("m2", "public") is not None
    assert main(["replay", "--redis", "redis://x", "--match", "m2", "--verify"]) == 0
    assert "OK" in capsys.readouterr().out
    assert main(["replay", "--redis", "redis://x", "--match", "m2", "--at", "5"]) == 0
    assert "== version 5 of" in capsys.readouterr().out
    assert main(["import", "--redis", "redis://x", "--in", str(path), "--as", "m2"]) == 2
    assert "'m2' is taken" in capsys.readouterr().err


def test_tool_errors_are_one_line_and_exit_2(backend: InProcess, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", "--redis", "redis://x", "--match", "nope", "--out", str(tmp_path / "x")]) == 2
    assert "no match 'nope'" in capsys.readouterr().err
    assert main(["import", "--redis", "redis://x", "--in", str(tmp_path / "missing.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["replay", "--redis", "redis://x", "--match", "nope"]) == 2
    assert "no match 'nope'" in capsys.readouterr().err
    assert isinstance(backend.backend, MemoryBackend)


def test_replay_finds_an_archived_match(backend: InProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """#32: a match the archiver moved out of Redis is replayed from the archive (``--archive``, else
    ``AIRSHIP_ARCHIVE_DIR``, else the archiver at ``AIRSHIP_ARCHIVE_URL``), seed included: ``--verify`` decides
    every command again."""
    from services.archive.files import archive_path, write_archive
    from services.archive.serve import serve_archive
    from services.replay.files import MatchLog
    from services.replay.transfer import load_match

    log = load_match(backend.backend.store, "m1")
    assert log.meta is not None
    gone = MatchLog(log.meta.model_copy(update={"match_id": "gone1"}), log.events)
    partitions = backend.backend.bus.partitions
    write_archive(archive_path(tmp_path, "gone1", partitions), gone)
    monkeypatch.delenv("AIRSHIP_ARCHIVE_DIR", raising=False)
    monkeypatch.delenv("AIRSHIP_ARCHIVE_URL", raising=False)
    assert main(["replay", "--redis", "redis://x", "--match", "gone1", "--verify"]) == 2
    assert "nor in the archive" in capsys.readouterr().err
    assert main(["replay", "--redis", "redis://x", "--match", "gone1", "--archive", str(tmp_path), "--verify"]) == 0
    assert "OK" in capsys.readouterr().out
    monkeypatch.setenv("AIRSHIP_ARCHIVE_DIR", str(tmp_path))
    assert main(["replay", "--redis", "redis://x", "--match", "gone1", "--at", "3"]) == 0
    assert "== version 3 of" in capsys.readouterr().out
    monkeypatch.delenv("AIRSHIP_ARCHIVE_DIR")
    from tests.ops.conftest import free_port

    port = free_port()
    server = serve_archive(tmp_path, partitions, port, host="127.0.0.1")
    try:
        monkeypatch.setenv("AIRSHIP_ARCHIVE_URL", f"http://127.0.0.1:{port}")
        assert main(["replay", "--redis", "redis://x", "--match", "gone1", "--verify"]) == 0
        assert "OK" in capsys.readouterr().out
    finally:
        server.shutdown()
        server.server_close()
