"""msgpack and JSON encoding of the envelopes."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schemas.codec import DecodeError, from_json_line, pack, to_json_line, unpack
from schemas.envelopes import CommandEnvelope, EventEnvelope


def test_command_envelope_round_trips_through_msgpack() -> None:
    env = CommandEnvelope(command_id="c-1", match_id="m1", seat=2, type="bid", body={"amount": 7},
                          expected_version=4)
    assert unpack(CommandEnvelope, pack(env)) == env


def test_event_envelope_round_trips_through_json_lines() -> None:
    env = EventEnvelope(match_id="m1", version=3, type="CardsDealt", body={"seat": 1, "cards": [1, 2]},
                        visible_to=[1], redacted={"seat": 1, "count": 2})
    assert from_json_line(EventEnvelope, to_json_line(env)) == env


def test_public_copy_strips_the_secret_body() -> None:
    env = EventEnvelope(match_id="m1", version=3, type="CardsDealt", body={"cards": [1]}, visible_to=[1],
                        redacted={"count": 1})
    assert env.public().body == {"count": 1} and env.public().visible_to is None
    assert env.seen_by(1) == {"cards": [1]} and env.seen_by(0) == {"count": 1} and env.seen_by(None) == {"count": 1}


@pytest.mark.parametrize("data", [b"", b"\xc1", b"\x01", b"\x91\x01", b"\x81\xa1a\x01"])
def test_garbage_is_a_decode_error(data: bytes) -> None:
    with pytest.raises(DecodeError):
        unpack(CommandEnvelope, data)


@given(st.binary(max_size=200))
def test_any_bytes_decode_or_fail_cleanly(data: bytes) -> None:
    with contextlib.suppress(DecodeError):
        unpack(CommandEnvelope, data)


def test_stored_results_are_compact_and_read_back_whole() -> None:
    from schemas.codec import DecodeError, pack, pack_result, unpack_result
    from schemas.envelopes import CommandResult

    results = [
        CommandResult(command_id="c" * 32, match_id="m" * 16, seat=2, status="accepted", version=120, events=3),
        CommandResult(command_id="0.k", match_id="m1", status="rejected", version=0, code="bad_envelope",
                      reason="malformed command envelope"),
        CommandResult(command_id="x", match_id="m1", seat=0, status="rejected", version=7, code="illegal"),
    ]
    for result in results:
        packed = pack_result(result)
        assert unpack_result(packed, result.match_id) == result
        assert unpack_result(pack(result), result.match_id) == result  # results stored before
        assert len(packed) < len(pack(result)) - len(result.match_id)
        bare = pack_result(result, with_id=False)  # as the seen hash and a results entry's `r` keep it
        assert len(bare) < len(packed) and unpack_result(bare, result.match_id,
                                                         result.command_id) == result
        with pytest.raises(DecodeError, match="without its command id"):
            unpack_result(bare, result.match_id)
    for junk in (b"\x93\x01\x02\x03", b"\x94\xa1c\x05\x01\x01", b"\xc1", b"\x94\xa1c\x00\xa1x\x01"):
        with pytest.raises(DecodeError):
            unpack_result(junk, "m1")
