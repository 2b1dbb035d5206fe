"""Upcasting: logs written in an older shape are upgraded on read, replay and verify correctly."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemas.codec import pack_obj
from schemas.envelopes import EVENT_SCHEMA_VERSION
from schemas.upcast import (
    UPCASTERS,
    RawEvent,
    Upcaster,
    UpcastError,
    Upcasters,
    decode_event,
    load_event,
    upcast_event,
)
from services.replay.files import read_match
from services.replay.stepper import Replay
from services.replay.verify import verify
from tests.replay import old_nim  # noqa: F401  (registers nim's version 0 upcaster)

FIXTURE = Path(__file__).parent / "fixtures" / "nim_v0.jsonl"


def test_the_version_0_fixture_reads_as_current_events() -> None:
    assert '"seats":[0]' in FIXTURE.read_text() and "schema_version" not in FIXTURE.read_text()
    log = read_match(FIXTURE)
    assert all(e.schema_version == EVENT_SCHEMA_VERSION for e in log.events)
    secret = log.events[2]
    assert secret.type == "SecretDealt" and secret.visible_to == [0] and secret.redacted == {"seat": 0}
    assert [e.body for e in log.events if e.type == "Taken"] == [
        {"seat": 0, "n": 3}, {"seat": 1, "n": 1}, {"seat": 0, "n": 2}, {"seat": 1, "n": 1}]


def test_the_version_0_fixture_replays_to_the_recorded_end() -> None:
    replay = Replay(read_match(FIXTURE))
    public = replay.view_at(replay.last)
    assert public["finished"] and public["pile"] == 0
    assert public["outcome"]["winners"] == [1]
    assert replay.view_at(replay.last, 0)["secret"] == 86
    assert replay.view_at(replay.last, 1)["secret"] == 6


def test_the_version_0_fixture_verifies_its_set_up_and_says_what_it_could_not_check() -> None:
    report = verify(read_match(FIXTURE))
    assert report.ok, report.summary()
    assert report.setup_checked and report.commands_decided == 0 and report.unchecked == 4


def test_an_upgraded_event_that_is_still_invalid_is_refused() -> None:
    with pytest.raises(UpcastError, match="invalid event"):
        load_event({"match_id": "a", "version": 1, "type": "T", "body": {}, "seats": "everyone"})


def test_generic_then_game_then_event_type_upcasters_run_in_order_per_step() -> None:
    registry = Upcasters(current=3)
    calls: list[str] = []

    def tag(name: str) -> Upcaster:
        def fn(raw: RawEvent) -> RawEvent:
            calls.append(f"{name}@{raw.get('schema_version', 0)}")
            return raw
        return fn

    registry.register(1, game="g", event_type="E")(tag("type"))
    registry.register(1, game="g")(tag("game"))
    registry.register(1)(tag("all"))
    registry.register(2, game="other")(tag("other"))
    raw = {"schema_version": 1, "type": "E"}
    out = registry.upcast(raw, game="g")
    assert calls == ["all@1", "game@1", "type@1"]
    assert out["schema_version"] == 3 and raw == {"schema_version": 1, "type": "E"}
    calls.clear()
    registry.upcast({"schema_version": 1, "type": "F"}, game="g")
    assert calls == ["all@1", "game@1"]


def test_current_events_pass_through_unchanged() -> None:
    raw = {"match_id": "a", "version": 1, "type": "T", "body": {"count": 1}, "schema_version": EVENT_SCHEMA_VERSION}
    assert upcast_event(raw, "nim") == raw


def test_registering_nonsense_is_refused() -> None:
    with pytest.raises(ValueError):
        UPCASTERS.register(EVENT_SCHEMA_VERSION)
    with pytest.raises(ValueError):
        UPCASTERS.register(0, event_type="Taken")


def test_a_packed_old_event_from_a_store_decodes_as_current() -> None:
    old = {"match_id": "a", "version": 5, "type": "Taken", "body": {"seat": 0, "count": 2}, "seats": [0, 1]}
    envelope = decode_event(pack_obj(old), "nim")
    assert envelope.body == {"seat": 0, "n": 2} and envelope.visible_to == [0, 1]
    assert decode_event(pack_obj(old)).body == {"seat": 0, "count": 2}  # game unknown: generic steps only
    with pytest.raises(UpcastError, match="not valid msgpack"):
        decode_event(b"\xc1")
