"""Replaying a match: the final views equal the projector's; steps, seats and the interactive mode."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from schemas.envelopes import MatchMeta
from services.cli import main
from services.games import GAMES
from services.replay.files import MatchLog, read_match, write_match
from services.replay.stepper import CHECKPOINT_EVERY, Replay, ReplayError, interact
from tests.replay.matches import finished_match


@pytest.fixture(scope="module")
def log() -> MatchLog:
    return finished_match(seed=3)[1]


@pytest.mark.parametrize("fmt", ["jsonl", "msgpack"])
@pytest.mark.parametrize(
    "game", [*sorted(n for n, g in GAMES.items() if type(g).__module__.startswith("services.games.")), "nim"]
)
def test_replaying_a_finished_match_gives_exactly_the_projectors_final_views(tmp_path: Path, game: str,
                                                                               fmt: str) -> None:
    embedded, log = finished_match(game, seed=11)
    path = tmp_path / f"match.{fmt}"
    write_match(path, log)
    replay = Replay(read_match(path))
    records = replay.records_at()
    stored = [embedded.backend.views.get_view("m1", r.key) for r in records]
    assert [r.key for r in records] == ["public", *map(str, range(replay.seats))]
    assert records == stored
    assert records[0].view.get("finished")


def test_a_seat_sees_its_secret_and_nobody_elses(log: MatchLog) -> None:
    replay = Replay(log)
    secret_0 = log.events[2].body["secret"]
    assert replay.view_at(replay.last, 0)["secret"] == secret_0
    assert replay.view_at(replay.last, None)["secret"] is None
    assert f"secret={secret_0}" in replay.render_step(3, 0)
    for text in (replay.render_step(3, None), replay.render_step(3, 1)):
        assert "SecretDealt (hidden) seat=0" in text and "secret=" not in text


def test_a_step_names_version_cause_and_board(log: MatchLog) -> None:
    replay = Replay(log)
    version = next(e.version for e in log.events if e.command is not None)
    seat = log.events[version - 1].seat
    public = replay.render_step(version)
    assert f"== version {version} of {replay.last} ==" in public
    assert f"seat {seat}: Taken" in public and "take" not in public.split("\n")[1]  # command is the sender's
    own = replay.render_step(version, seat)
    assert f"seat {seat} (take n=" in own
    assert "pile: " in own and "to_act: [" in own
    assert "(before the first event)" in replay.render_step(0)


def test_states_are_rebuilt_the_same_from_any_checkpoint(log: MatchLog) -> None:
    long = MatchLog(log.meta, log.events)
    forward = Replay(long)
    states = [forward.state_at(v) for v in range(forward.last + 1)]
    backward = Replay(long)
    assert [backward.state_at(v) for v in reversed(range(backward.last + 1))] == states[::-1]
    assert CHECKPOINT_EVERY > 0


def test_interactive_mode_steps_forward_back_and_jumps(log: MatchLog) -> None:
    replay = Replay(log)
    out = io.StringIO()
    stopped = interact(replay, io.StringIO("n\n\np\ng 2\nbogus\ng x\ng 999\nl\nf\nq\n"), out, start=1)
    assert stopped == 0
    versions = [int(line.split("== version ")[1].split(" ")[0]) for line in out.getvalue().splitlines()
                if "== version" in line]
    assert versions == [1, 2, 3, 2, 2, replay.last, 0]
    assert "unknown key 'bogus'" in out.getvalue()
    assert "goto needs a version number" in out.getvalue()
    assert f"no version 999; this match has 0..{replay.last}" in out.getvalue()


def test_interactive_mode_ends_at_end_of_input(log: MatchLog) -> None:
    assert interact(Replay(log), io.StringIO("n\n"), io.StringIO(), seat=1, start=4) == 5


def test_cli_replay_shows_every_step_or_one(tmp_path: Path, log: MatchLog, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.jsonl"
    write_match(path, log)
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.count("== version") == len(log.events)
    assert main(["replay", str(path), "--at", "4", "--seat", "1"]) == 0
    out = capsys.readouterr().out
    assert out.count("== version") == 1 and "version 4 of" in out and f"secret={log.events[3].body['secret']}" in out


def test_cli_replay_interactive_reads_stdin(tmp_path: Path, log: MatchLog, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "m.msgpack"
    write_match(path, log)
    monkeypatch.setattr("sys.stdin", io.StringIO("n\np\nq\n"))
    assert main(["replay", str(path), "-i", "--at", "3"]) == 0
    assert capsys.readouterr().out.count("== version") == 3


@pytest.mark.parametrize(("args", "message"), [
    (["--seat", "5"], "seat 5 does not exist"),
    (["--at", "99"], "no version 99"),
])
def test_cli_replay_refuses_bad_arguments(tmp_path: Path, log: MatchLog, capsys: pytest.CaptureFixture[str],
                                          args: list[str], message: str) -> None:
    path = tmp_path / "m.jsonl"
    write_match(path, log)
    assert main(["replay", str(path), *args]) == 2
    assert message in capsys.readouterr().err


def test_cli_replay_needs_a_source(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay"]) == 2
    assert "name a log file" in capsys.readouterr().err


def test_a_log_that_cannot_be_replayed_says_why(log: MatchLog) -> None:
    with pytest.raises(ReplayError, match="unknown game 'chess'"):
        Replay(MatchLog(MatchMeta(match_id="x", game="chess", seats=2, seed=1), log.events))
    with pytest.raises(ReplayError, match="version 3: expected version 3, found 4"):
        Replay(MatchLog(log.meta, log.events[:2] + log.events[3:]))
    with pytest.raises(ReplayError, match="cannot tell the game"):
        Replay(MatchLog(None, log.events[1:]))
    broken = list(log.events)
    broken[4] = broken[4].model_copy(update={"body": {}})
    with pytest.raises(ReplayError, match="version 5: evolve failed"):
        Replay(MatchLog(log.meta, broken)).state_at(6)
