"""The compact log entry (schemas.logentry): every field of every event survives, whatever slice is read."""

from __future__ import annotations

import random

import msgpack
import pytest

from schemas.codec import DecodeError, pack, pack_obj
from schemas.envelopes import EventEnvelope
from schemas.logentry import (
    cause_needed,
    decode_slice,
    first_cause,
    load_slice,
    log_and_feed,
    pack_entries,
)
from schemas.upcast import load_event
from services.bots.runner import play_match
from services.cli.play import make_bots
from services.games import GAMES
from services.games.registry import builtin_games
from services.pipeline.inprocess import InProcess


def played_log(game: str, seed: int) -> list[EventEnvelope]:
    """A random match played through the in-process pipeline (command ids, seats and commands as stored)."""
    seats = min(4, GAMES[game].max_seats)
    client = InProcess().client()
    report = play_match(client, game, seats, make_bots("random", seats, seed, game), seed=seed)
    return client.backend.store.read_log(report.meta.match_id)


def range_reply(log: list[EventEnvelope], entries: list[bytes]) -> list[tuple[bytes, dict[bytes, bytes]]]:
    return [(f"{e.version}-0".encode(), {b"e": data}) for e, data in zip(log, entries, strict=True)]


@pytest.fixture(scope="module", params=builtin_games())
def log(request: pytest.FixtureRequest) -> list[EventEnvelope]:
    return played_log(request.param, seed=11)


def test_a_whole_log_reads_back_equal(log: list[EventEnvelope]) -> None:
    reply = range_reply(log, pack_entries(log))
    events, _ = load_slice(log[0].match_id, reply, game=None)
    assert events == log


def test_every_slice_reads_back_equal_with_the_cause_looked_back_for(log: list[EventEnvelope]) -> None:
    entries = pack_entries(log)
    raws = [msgpack.unpackb(d) for d in entries]
    assert any(cause_needed(r) for r in raws), "a command with several events keeps its id once"
    rng = random.Random(3)
    for start in [0, *rng.sample(range(1, len(log)), 40)]:
        stop = min(len(log), start + rng.randint(1, 30))
        inherited = None
        if cause_needed(raws[start]):
            found, inherited = first_cause(reversed(raws[:start]))
            assert found or log[start].command_id is None  # (not found: set-up events from the log's start)
        events, _ = load_slice(log[0].match_id, range_reply(log[start:stop], entries[start:stop]), None, inherited)
        assert events == log[start:stop]


def test_slices_pass_the_cause_on(log: list[EventEnvelope]) -> None:
    reply = range_reply(log, pack_entries(log))
    events, cause = [], None
    for page in range(0, len(reply), 7):
        more, cause = load_slice(log[0].match_id, reply[page:page + 7], None, cause)
        events += more
    assert events == log


def test_entries_are_much_smaller_than_the_envelope(log: list[EventEnvelope]) -> None:
    compact = sum(map(len, pack_entries(log)))
    whole = sum(len(pack(e)) for e in log)
    assert compact < 0.7 * whole


def test_the_feed_keeps_the_whole_envelope(log: list[EventEnvelope]) -> None:
    flat = log_and_feed(log[:5])
    assert flat[1::2] == [pack(e) for e in log[:5]] and flat[0::2] == pack_entries(log[:5])


def test_old_map_entries_and_new_ones_read_together() -> None:
    log = played_log("moderne-zeiten", seed=2)
    old = [pack_obj(e.model_dump(exclude_none=True)) for e in log[:10]]
    new = pack_entries(log[10:])
    events, _ = load_slice(log[0].match_id, range_reply(log, old + new), None)
    assert events == log


def test_garbage_is_refused() -> None:
    for bad in (["only", "the", "type", "and", 7], [1, "X", {}], ["X", {}, None, None, ["c", 0, "not a pair"]],
                ["X", {}, None, None, True], 5, []):
        with pytest.raises(DecodeError):
            decode_slice("m", [(1, bad)])


def test_entries_are_positional_and_leave_out_what_they_can() -> None:
    log = played_log("moderne-zeiten", seed=4)
    raws = [msgpack.unpackb(d) for d in pack_entries(log)]
    assert raws[0][:2] == [log[0].type, log[0].body] and raws[0][4] == 0  # set-up, named: no command
    assert all(len(r) <= 5 for r in raws)  # schema version 1 is never written
    assert all(len(r) <= 4 for r in raws[1:len([e for e in log if e.command_id is None])])


def test_a_command_id_is_written_once_per_command() -> None:
    log = played_log("mad-zeppelin", seed=5)
    named = [msgpack.unpackb(d) for d in pack_entries(log)]
    firsts = {e.command_id for e in log if e.command_id}
    assert sum(isinstance(r[4], list) for r in named if len(r) > 4) == len(firsts) < len(log)
    assert load_event(decode_slice(log[0].match_id, [(log[0].version, named[0])])[0][0]) == log[0]
