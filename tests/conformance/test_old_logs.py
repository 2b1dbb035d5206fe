"""Old logs replay forever: every game's checked-in match logs (its registration's ``logs`` folder) are read,
validated, replayed and verified against the current code on every CI run.

A built-in game must have at least one (the three were captured on 2026-12-07 with ``airship play --seed 2026
--bots heuristic --save-log``). A change to a game's event shapes or rules that an old match no longer replays
through fails here; docs/game-contract.md, "Changing an event", says how to change a shape so it does not (a
field added with a default needs nothing more; anything else an upcaster, ``schemas/upcast.py``). The test game's
log was written before its ``Called`` event had the field ``say`` (the worked example of adding one)."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.games.registry import registration_of
from services.replay.files import MatchLog, read_match
from services.replay.stepper import Replay
from services.replay.verify import verify
from tests.registered import GAMES, SUITE_GAMES


def logs_of(game: str) -> list[Path]:
    folder = registration_of(game).logs
    return sorted(folder.glob("*.jsonl.gz")) if folder is not None and folder.is_dir() else []


CASES = [(game, path) for game in SUITE_GAMES for path in logs_of(game)]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_built_in_game_keeps_an_old_log(game: str) -> None:
    assert logs_of(game), f"{game}: no checked-in log in its registration's logs folder"


def _events_validate(game: str, log: MatchLog) -> None:
    schemas = registration_of(game).schemas
    assert schemas is not None
    for envelope in log.events:
        model = schemas.events.get(envelope.type)
        assert model is not None, f"v{envelope.version}: {envelope.type} is no longer an event of {game}"
        model.model_validate(envelope.body)  # the recorded body, under today's model
        if envelope.redacted is not None:
            model.model_validate(envelope.redacted)


@pytest.mark.parametrize(("game", "path"), CASES, ids=[f"{g}:{p.name}" for g, p in CASES])
def test_an_old_log_reads_replays_and_verifies(game: str, path: Path) -> None:
    log = read_match(path)
    assert log.meta is not None and log.meta.game == game and log.meta.status == "finished"
    _events_validate(game, log)
    replay = Replay(log)
    public = replay.view_at(replay.last)
    assert public["finished"] and public["outcome"] is not None, public
    for seat in range(log.meta.seats):
        assert replay.view_at(replay.last, seat)["outcome"] == public["outcome"]
    report = verify(log)
    assert report.ok, report.summary()
    assert report.setup_checked and report.commands_decided > 0 and report.unchecked == 0, report.summary()
