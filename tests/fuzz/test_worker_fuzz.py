"""Hostile input through a real worker against real Redis: raw bytes, mutated envelopes, and per game
command bodies mutated from legal ones, stamped with the acting seat, another seat or one that does not
exist (the gateway authenticates seats; the worker must still survive whatever a stream holds). Every input
gets a rejection or a legal outcome (or, when nobody can be answered, a dead letter); none escapes the
worker as an exception or changes a match it should not. The count is printed at the end of the run."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator, Sequence
from typing import Any, TypeVar

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from schemas.codec import pack, pack_obj
from schemas.envelopes import CommandEnvelope
from services import metrics
from services.games import builtin_games, get_game
from services.pipeline.redis_backend import RedisBackend
from services.pipeline.worker import Worker, WorkerSettings
from tests.fuzz.arena import Arena
from tests.fuzz.counts import FUZZ
from tests.fuzz.strategies import JUNK, mutated_body, mutated_bytes, mutated_fields, packable

pytestmark = pytest.mark.redis


@pytest.fixture
def arena(redis_backend: RedisBackend) -> Iterator[Arena]:
    yield Arena(redis_backend)


T = TypeVar("T")


def pick(data: st.DataObject, options: Sequence[T]) -> T:
    """One of ``options``, drawn so that the data drawn never depends on how many there are: the match a
    test case plays against moves on between cases (accepted commands), and Hypothesis replays a case
    only when what it draws has the same shape each time."""
    return options[data.draw(st.integers(0, 2**16)) % len(options)]


def _envelope(match_id: str, seat: int, type_: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"command_id": uuid.uuid4().hex, "match_id": match_id, "seat": seat, "type": type_, "body": body}


@FUZZ
@given(data=st.binary(max_size=400))
def test_raw_bytes(arena: Arena, data: bytes) -> None:
    arena.push(arena.table(builtin_games()[0]).match_id, data, "raw bytes")


@FUZZ
@given(st.data())
def test_mutated_envelope_bytes(arena: Arena, data: st.DataObject) -> None:
    table = arena.table(builtin_games()[0])
    env = CommandEnvelope.model_validate(_envelope(table.match_id, 0, "pass", {}))
    arena.push(table.match_id, data.draw(mutated_bytes(pack(env))), "mutated bytes")


@FUZZ
@given(st.data())
def test_mutated_envelope_fields(arena: Arena, data: st.DataObject) -> None:
    table = arena.table(builtin_games()[0])
    obj = data.draw(mutated_fields(_envelope(table.match_id, 0, "pass", {})))
    if data.draw(st.booleans()):
        obj["expected_version"] = data.draw(JUNK)
    packed = packable(obj)
    assume(packed is not None)
    assert packed is not None
    arena.push(table.match_id, packed, "mutated fields")


@pytest.mark.parametrize("game_name", builtin_games())
@FUZZ
@given(data=st.data())
def test_mutated_commands_of_each_game(arena: Arena, game_name: str, data: st.DataObject) -> None:
    table = arena.table(game_name, data.draw(st.integers(1, 10_000)), data.draw(st.integers(0, 80)))
    game = get_game(game_name)
    state = arena.state(table.match_id)
    acting = sorted(game.to_act(state))
    seat = pick(data, acting) if acting else 0
    legal = game.legal_commands(state, seat)
    base = pick(data, legal) if legal else None
    types = sorted({c.type for c in legal} | {"bogus", "", "x" * 41, "pass", "draw"})
    type_ = pick(data, [base.type] * 4 + types) if base else pick(data, types)
    body = data.draw(mutated_body(dict(base.body) if base else {}))
    sender = pick(data, [seat] * 4 + [*range(table.seats), 15, table.seats])
    packed = packable(_envelope(table.match_id, sender, type_, body))
    assume(packed is not None)
    assert packed is not None
    result = arena.push(table.match_id, packed, game_name)
    if result is not None and result.status == "accepted":
        assert sender in acting, "only a seat that may act has a command accepted"


def test_a_worker_loop_survives_a_flood_of_junk_and_then_serves(arena: Arena) -> None:
    """The full loop, not one delivery at a time: junk of every kind, then a legal command."""
    backend = arena.backend
    table = arena.table(builtin_games()[0])
    junk: list[bytes] = [b"", b"\xc1", b"\x92\x01", pack_obj([1, 2, 3]), pack_obj({"match_id": table.match_id}),
                         pack_obj({"command_id": "x", "match_id": "nope", "seat": 0, "type": "t"}),
                         pack_obj({"command_id": "y", "match_id": table.match_id, "seat": 99, "type": "t"}),
                         pack_obj({"command_id": "z", "match_id": table.match_id, "seat": 0, "type": "t",
                                   "credential": "junk", "body": {"a": [[[[[]]]]] * 50}})]
    for data in junk * 5:
        backend.bus.publish(table.match_id, data)
    game = get_game(table.game)
    state = arena.state(table.match_id)
    seat = min(game.to_act(state))
    legal = game.legal_commands(state, seat)[0]
    env = CommandEnvelope(command_id="legal-1", match_id=table.match_id, seat=seat, type=legal.type,
                          body=legal.body)
    backend.bus.publish(table.match_id, pack(env))
    errors = metrics.WORKER_ERRORS._value.get()
    worker = Worker(backend.bus, backend.store, "loop", WorkerSettings(block_ms=20, claim_every_s=0.1))
    thread = threading.Thread(target=worker.run, daemon=True)
    thread.start()
    try:
        for _ in range(200):
            if backend.store.result(table.match_id, "legal-1") is not None and not sum(backend.bus.lag().values()):
                break
            thread.join(0.05)
        assert thread.is_alive()
    finally:
        worker.stop()
        thread.join(5)
    result = backend.store.result(table.match_id, "legal-1")
    assert result is not None and result.status == "accepted"
    assert metrics.WORKER_ERRORS._value.get() == errors, "no input made the worker fail unexpectedly"
