"""A whole match among bots through the in-process pipeline, and the `airship play` command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schemas.envelopes import EventEnvelope
from services.bots.base import RandomBot
from services.bots.runner import play_match
from services.cli import main
from services.pipeline.inprocess import InProcess


def test_a_match_runs_to_its_end_through_worker_and_projector() -> None:
    embedded = InProcess(partitions=2)
    report = play_match(embedded.client(), "nim", 3, [RandomBot(s) for s in range(3)], seed=5)
    assert report.final_view["finished"]
    assert len(report.outcome["winners"]) == 1
    assert report.rejected == 0
    assert embedded.backend.store.version(report.meta.match_id) == report.version


def test_the_same_seed_gives_the_same_match() -> None:
    logs = []
    for _ in range(2):
        embedded = InProcess()
        report = play_match(embedded.client(), "nim", 2, [RandomBot(s) for s in range(2)], seed=11,
                            match_id="same")
        logs.append([(e.type, e.body) for e in embedded.backend.store.read_log(report.meta.match_id)])
    assert logs[0] == logs[1]


def test_play_command_prints_scores_and_saves_the_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "log.jsonl"
    assert main(["play", "--game", "nim", "--players", "2", "--seed", "3", "--save-log", str(path), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "seat 0:" in out and "seat 1:" in out and "winner" in out
    header, *lines = path.read_text().splitlines()
    assert json.loads(header)["kind"] == "meta" and json.loads(header)["seed"] == 3
    envelopes = [EventEnvelope.model_validate(json.loads(line)) for line in lines]
    assert [e.version for e in envelopes] == list(range(1, len(envelopes) + 1))
    assert envelopes[0].type == "MatchStarted"


def test_play_command_rejects_bad_options_clearly(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--game", "nim", "--players", "9", "--quiet"]) == 2
    assert "nim needs 2 to 4 players" in capsys.readouterr().err
