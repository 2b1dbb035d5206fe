"""``--verify``: a clean log passes; any edit is caught and named by its version."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.cli import main
from services.replay.files import MatchLog, write_match
from services.replay.verify import verify
from tests.replay.matches import finished_match, tampered


@pytest.fixture(scope="module")
def log() -> MatchLog:
    return finished_match(seed=5)[1]


def first_command_version(log: MatchLog) -> int:
    return next(e.version for e in log.events if e.command is not None)


def test_a_clean_log_verifies_with_set_up_and_every_command_decided_again(log: MatchLog) -> None:
    report = verify(log)
    assert report.ok, report.summary()
    commands = sum(e.command is not None for e in log.events)
    assert report.setup_checked and report.commands_decided == commands > 0
    assert report.events_decided + 4 == len(log.events) and report.unchecked == 0
    assert "OK" in report.summary()


def test_an_edited_command_event_is_named(log: MatchLog) -> None:
    version = first_command_version(log) + 1
    n = log.events[version - 1].body["n"]
    report = verify(tampered(log, version, n=n % 3 + 1))
    assert report.mismatch is not None and report.mismatch.version == version
    assert "body differs" in report.mismatch.reason


def test_an_edited_hidden_set_up_event_is_named(log: MatchLog) -> None:
    report = verify(tampered(log, 4, secret=log.events[3].body["secret"] + 1))
    assert report.mismatch is not None and report.mismatch.version == 4


def test_a_changed_visibility_is_caught(log: MatchLog) -> None:
    events = list(log.events)
    events[2] = events[2].model_copy(update={"visible_to": None})
    report = verify(MatchLog(log.meta, events))
    assert report.mismatch is not None and report.mismatch.version == 3 and "visible_to" in report.mismatch.reason


def test_a_removed_event_is_a_gap_named_by_version(log: MatchLog) -> None:
    events = log.events[:5] + log.events[6:]
    report = verify(MatchLog(log.meta, events))
    assert report.mismatch is not None and report.mismatch.version == 6


def test_a_truncated_finished_match_is_caught(log: MatchLog) -> None:
    report = verify(MatchLog(log.meta, log.events[:-1]))
    assert report.mismatch is not None and report.mismatch.version == len(log.events)
    assert "has not ended" in report.mismatch.reason


def test_an_edited_recorded_command_is_caught(log: MatchLog) -> None:
    version = first_command_version(log)
    events = list(log.events)
    events[version - 1] = events[version - 1].model_copy(update={"command": {"type": "take", "body": {"n": 9}}})
    report = verify(MatchLog(log.meta, events))
    assert report.mismatch is not None and report.mismatch.version == version
    assert "rejected when decided again" in report.mismatch.reason


def test_a_different_seed_fails_at_set_up(log: MatchLog) -> None:
    assert log.meta is not None
    report = verify(MatchLog(log.meta.model_copy(update={"seed": log.meta.seed + 1}), log.events))
    assert report.mismatch is not None and report.mismatch.version == 2  # the pile size


def test_without_header_only_evolve_is_checked_and_the_report_says_so(log: MatchLog) -> None:
    report = verify(MatchLog(None, log.events))
    assert report.ok and not report.setup_checked and report.commands_decided == 0
    assert "no seed" in report.summary()
    assert report.unchecked == len(log.events)


def test_cli_verify_exits_non_zero_naming_the_version(tmp_path: Path, log: MatchLog,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.msgpack"
    write_match(good, log)
    version = first_command_version(log)
    write_match(bad, tampered(log, version, n=log.events[version - 1].body["n"] % 3 + 1))
    assert main(["replay", str(good), "--verify"]) == 0
    assert "OK" in capsys.readouterr().out
    assert main(["replay", str(bad), "--verify"]) == 1
    assert f"FAILED at version {version}" in capsys.readouterr().out
