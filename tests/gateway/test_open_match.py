"""A match waiting for players, as the gateway serves it (docs/gateway.md, "Views"), against a real stack:
while it is open every view record says nobody acts and nothing is legal, at version 0, over HTTP, long polls
and the WebSocket alike; the claim of the last seat (which writes no event) wakes whoever waits, and then
the seat to act sees its legal commands, each of which is accepted."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect as ws_connect

from schemas.legal import Choice
from tests.gateway.stack import GatewayStack

pytestmark = [pytest.mark.redis, pytest.mark.gateway]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create(c: httpx.Client, game: str, seats: int) -> str:
    created = c.post("/matches", json={"game": game, "seats": seats})
    assert created.status_code == 201, created.text
    match_id: str = created.json()["match_id"]
    return match_id


def join(c: httpx.Client, match_id: str, seat: int) -> str:
    joined = c.post(f"/matches/{match_id}/seats", json={"seat": seat})
    assert joined.status_code == 201, joined.text
    token: str = joined.json()["token"]
    return token


def projected(c: httpx.Client, match_id: str, token: str | None = None) -> dict[str, Any]:
    """The record of the seat (or the public one) once the projector has written the set-up's views."""
    path = f"/matches/{match_id}/views/" + ("me" if token else "public")
    deadline = time.monotonic() + 10
    while True:
        answer = c.get(path, headers=bearer(token) if token else {})
        if answer.status_code == 200:
            record: dict[str, Any] = answer.json()
            return record
        assert answer.status_code == 204 and time.monotonic() < deadline, answer.text
        time.sleep(0.05)


def assert_waiting(record: dict[str, Any]) -> None:
    assert record["version"] == 0, record
    assert record["to_act"] == [] and record["legal"] == [] and not record["finished"], record


def recv(ws: Any, timeout_s: float = 10.0) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(ws.recv(timeout=timeout_s))
    return message


def test_an_open_match_says_nobody_acts_and_each_listed_command_is_accepted_once_it_begins(
        gateway_stack: GatewayStack) -> None:
    c = httpx.Client(base_url=gateway_stack.url, timeout=30)
    for i in range(3):  # nim lists every take as a command of its own: take legal[i] in the i-th match
        match_id = create(c, "nim", 2)
        tokens = {0: join(c, match_id, 0)}
        assert_waiting(projected(c, match_id, tokens[0]))
        assert_waiting(projected(c, match_id))
        early = c.post(f"/matches/{match_id}/commands", headers=bearer(tokens[0]),
                       json={"idempotency_key": "early", "type": "take", "body": {"n": 1}}).json()
        assert early["code"] == "not_your_turn", early
        nothing = c.get(f"/matches/{match_id}/views/me", headers=bearer(tokens[0]),
                        params={"after_version": 0, "wait_s": 0})
        assert nothing.status_code == 204, "nothing newer than the preview (version 0) until it begins"
        tokens[1] = join(c, match_id, 1)
        public = projected(c, match_id)
        assert public["version"] > 0 and len(public["to_act"]) == 1, public
        seat = public["to_act"][0]
        mine = c.get(f"/matches/{match_id}/views/me", headers=bearer(tokens[seat])).json()
        assert mine["version"] == public["version"] and mine["to_act"] == [seat] and len(mine["legal"]) == 3
        other = c.get(f"/matches/{match_id}/views/me", headers=bearer(tokens[1 - seat])).json()
        assert other["to_act"] == [seat] and other["legal"] == []
        command = mine["legal"][i]
        answer = c.post(f"/matches/{match_id}/commands", headers=bearer(tokens[seat]),
                        json={"idempotency_key": "first", "expected_version": mine["version"], **command}).json()
        assert answer["status"] == "accepted", (command, answer)


def test_a_real_game_waiting_for_its_third_player(gateway_stack: GatewayStack) -> None:
    c = httpx.Client(base_url=gateway_stack.url, timeout=30)
    match_id = create(c, "moderne-zeiten", 3)
    tokens = {seat: join(c, match_id, seat) for seat in (0, 1)}
    for seat in (0, 1):
        assert_waiting(projected(c, match_id, tokens[seat]))
    waiting = projected(c, match_id)
    assert_waiting(waiting)
    assert waiting["view"]["to_act"], "the game's own view still shows who will act first"
    tokens[2] = join(c, match_id, 2)
    public = projected(c, match_id)
    seat = public["to_act"][0]
    mine = c.get(f"/matches/{match_id}/views/me", headers=bearer(tokens[seat])).json()
    assert mine["legal"], mine
    for n, item in enumerate(mine["legal"]):  # one command of each choice, each on the state it was listed for
        body = Choice.model_validate(item).bodies(limit=1)
        command = {"type": item["type"], "body": next(body)}
        answer = c.post(f"/matches/{match_id}/commands", headers=bearer(tokens[seat]), params={"wait_s": 10},
                        json={"idempotency_key": f"c{n}", "expected_version": mine["version"], **command}).json()
        if n == 0:
            assert answer["status"] == "accepted", (command, answer)
        else:  # the first moved the match on: the others are refused as stale, never as out of turn
            assert answer["code"] == "conflict", (command, answer)


def test_whoever_waits_learns_that_the_match_began(gateway_stack: GatewayStack) -> None:
    """A long poll and WebSocket subscriptions (the seat with events, a spectator) started while the match is
    open get nothing until the last seat is taken, then at once the record of the match as it began."""
    c = httpx.Client(base_url=gateway_stack.url, timeout=30)
    match_id = create(c, "nim", 2)
    token = join(c, match_id, 0)
    assert_waiting(projected(c, match_id, token))
    polled: dict[str, Any] = {}

    def long_poll() -> None:
        with httpx.Client(base_url=gateway_stack.url, timeout=30) as poller:
            started = time.monotonic()
            answer = poller.get(f"/matches/{match_id}/views/me", headers=bearer(token),
                                params={"after_version": 0, "wait_s": 20})
            polled.update(status=answer.status_code, record=answer.json(), waited=time.monotonic() - started)

    with ws_connect(gateway_stack.ws_url) as seat_ws, ws_connect(gateway_stack.ws_url) as watcher:
        seat_ws.send(json.dumps({"kind": "subscribe", "match_id": match_id, "token": token, "events": True}))
        watcher.send(json.dumps({"kind": "subscribe", "match_id": match_id}))
        assert recv(seat_ws)["kind"] == "subscribed" and recv(watcher)["kind"] == "subscribed"
        for ws in (seat_ws, watcher):  # the open match's record once (version 0, nobody acts), so a table shows
            opened = recv(ws)
            assert opened["kind"] == "view" and opened["version"] == 0 and opened["to_act"] == [], opened
        poller = threading.Thread(target=long_poll)
        poller.start()
        with pytest.raises(TimeoutError):
            recv(seat_ws, timeout_s=1.0)  # nothing more while the match is open: no other view, no event
        assert not polled, "the long poll still waits"
        join(c, match_id, 1)
        poller.join(timeout=15)
        assert polled["status"] == 200 and polled["waited"] < 15, polled
        began = polled["record"]
        assert began["version"] > 0 and began["to_act"], began
        events = [recv(seat_ws) for _ in range(began["version"])]
        assert [(e["kind"], e["event"]["version"]) for e in events] == [
            ("event", v) for v in range(1, began["version"] + 1)]
        view = recv(seat_ws)
        assert view["kind"] == "view" and view["version"] == began["version"] and view["to_act"] == began["to_act"]
        assert (view["legal"] != []) == (began["to_act"] == [0])
        public = recv(watcher)
        assert public["kind"] == "view" and public["key"] == "public" and public["version"] == began["version"]
        assert public["to_act"] == began["to_act"]
