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
