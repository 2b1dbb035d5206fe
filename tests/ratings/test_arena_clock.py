"""A rated match is always clocked (#29): an arena match whose bot dies mid-match ends by forfeit, and the ladder
rates it (the forfeiting player loses). The rated clock is shortened here (``AIRSHIP_RATED_CLOCK_S``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from fastapi.testclient import TestClient

from schemas.clock import FORFEITED, TIMED_OUT
from services.bots.base import RandomBot
from services.gateway.app import create_app
from services.pipeline.redis_local import LocalServices
from services.ratings.matches import rated as rated_in_redis
from services.ratings.players import API_KEY_HEADER
from services.settings import Settings
from tests.ratings.conftest import register

RATED_S = 0.6
GAME = "mad-zeppelin"


@pytest.fixture
def settings(redis_settings: Settings) -> Settings:
    return redis_settings.with_(claim_idle_ms=300, claim_every_s=0.2, rated_clock_s=RATED_S)


@pytest.fixture
def gateway(settings: Settings) -> Iterator[TestClient]:
    """The gateway in process with a worker and a projector thread (ann's bot reads her views)."""
    services = LocalServices(settings, workers=1, projectors=1).start()
    try:
        with TestClient(create_app(settings)) as client:
            yield client
    finally:
        services.stop(keep_s=3600)


def matched(gateway: TestClient, key: str, out: dict[str, Any]) -> None:
    ticket = gateway.post(f"/arena/{GAME}/queue", json={"seats": [2]}, headers={API_KEY_HEADER: key}).json()
    while ticket["status"] != "matched":
        ticket = gateway.get(ticket["location"], params={"wait_s": 5}, headers={API_KEY_HEADER: key}).json()
    out.update(ticket)


def test_an_arena_match_whose_bot_dies_ends_by_forfeit_and_is_rated(gateway: TestClient, r: redis.Redis,
                                                                    settings: Settings) -> None:
    listed = {g["name"]: g for g in gateway.get("/games").json()["games"]}
    assert listed[GAME]["rated_clock"] == {"kind": "move", "seconds": RATED_S, "increment": 0.0, "timeouts": 3}
    keys = {name: register(gateway, name) for name in ("ann", "bob")}
    seats: dict[str, dict[str, Any]] = {"ann": {}, "bob": {}}
    polls = [threading.Thread(target=matched, args=(gateway, keys[n], seats[n])) for n in seats]
    for thread in polls:
        thread.start()
    for thread in polls:
        thread.join(timeout=30)
    match_id, ann_seat, bob_seat = seats["ann"]["match_id"], seats["ann"]["seat"], seats["bob"]["seat"]
    ann = {"Authorization": f"Bearer {seats['ann']['token']}"}
    bot = RandomBot(7)
    # ann's bot answers at once whenever she must act; bob's bot died after the pairing: it never moves
    deadline, version, moves = time.monotonic() + 60, 0, 0
    while True:
        assert time.monotonic() < deadline, "the arena match did not end"
        answer = gateway.get(f"/matches/{match_id}/views/me", params={"after_version": version, "wait_s": 2},
                             headers=ann)
        if answer.status_code == 204:
            continue
        record = answer.json()
        version = record["version"]
        if record["finished"]:
            break
        if ann_seat in record["to_act"] and record["legal"]:
            assert record["clock"]["seats"][ann_seat]["deadline_ms"] is not None and record["server_ms"]
            moves += 1
            command = bot.choose(record["view"], record["legal"])
            gateway.post(f"/matches/{match_id}/commands", headers=ann,
                         json={"idempotency_key": f"a{moves}", "expected_version": version, **command})
    log = gateway.get(f"/matches/{match_id}/log", headers=ann).json()["events"]
    timed_out = [e["body"]["in_row"] for e in log if e["type"] == TIMED_OUT and e["body"]["seat"] == bob_seat]
    assert timed_out == [1, 2], "; ".join(f"{e['type']} {e['body']}" for e in log)
    assert log[-1]["type"] == FORFEITED and log[-1]["body"]["seat"] == bob_seat
    assert record["outcome"]["detail"] == {"forfeited": [bob_seat], "reason": "timeouts"}
    assert record["outcome"]["winners"] == [ann_seat]
    rated = rated_in_redis(r, settings.keys, match_id)
    assert rated is not None
    assert {p.player: (p.rank, p.won) for p in rated.placings} == {"ann": (0, True), "bob": (1, False)}


def test_a_match_is_created_with_its_time_control_and_says_it(gateway: TestClient) -> None:
    clock = {"kind": "bank", "seconds": 300.0, "increment": 5.0, "timeouts": 3}
    made = gateway.post("/matches", json={"game": GAME, "seats": 2, "clock": clock})
    assert made.status_code == 201, made.text
    assert made.json()["clock"] == clock
    listed = gateway.get("/matches", params={"status": "open"}).json()["matches"]
    assert [m["clock"] for m in listed if m["match_id"] == made.json()["match_id"]] == [clock]
    plain = gateway.post("/matches", json={"game": GAME, "seats": 2, "clock": {"kind": "none"}}).json()
    assert plain["clock"] is None
    for bad in ({"kind": "hourglass"}, {"kind": "move", "seconds": 0}, {"kind": "bank", "seconds": 60, "x": 1},
                {"kind": "move", "seconds": "30"}):
        refused = gateway.post("/matches", json={"game": GAME, "seats": 2, "clock": bad})
        assert refused.status_code == 400, (bad, refused.text)  # (a malformed body: the field is named)
        assert refused.json()["field"].startswith("body.clock")
