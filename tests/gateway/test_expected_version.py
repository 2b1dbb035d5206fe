"""``expected_version`` as the gateway answers it (docs/gateway.md, "Commands"), against a real stack: a
version the match is past is rejected with ``conflict``; one it has not reached with ``future_version``, a
reason naming both versions; nothing changes either way. Over HTTP and the WebSocket alike."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect as ws_connect

from tests.gateway.stack import GatewayStack

pytestmark = [pytest.mark.redis, pytest.mark.gateway]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def acting(c: httpx.Client) -> tuple[str, str, dict[str, Any]]:
    """A running nim match: its id, the token of the seat to act, and that seat's record."""
    match_id = c.post("/matches", json={"game": "nim", "seats": 2}).json()["match_id"]
    tokens = [c.post(f"/matches/{match_id}/seats", json={"seat": s}).json()["token"] for s in (0, 1)]
    public = c.get(f"/matches/{match_id}/views/public", params={"after_version": 0, "wait_s": 10}).json()
    token = tokens[public["to_act"][0]]
    mine: dict[str, Any] = c.get(f"/matches/{match_id}/views/me", headers=bearer(token)).json()
    assert mine["legal"], mine
    return match_id, token, mine


def test_a_future_expected_version_has_its_own_code_and_a_stale_one_is_a_conflict(
        gateway_stack: GatewayStack) -> None:
    c = httpx.Client(base_url=gateway_stack.url, timeout=30)
    match_id, token, mine = acting(c)
    version, command = mine["version"], mine["legal"][0]

    def send(key: str, expected: int) -> dict[str, Any]:
        answer = c.post(f"/matches/{match_id}/commands", headers=bearer(token),
                        json={"idempotency_key": key, "expected_version": expected, **command})
        assert answer.status_code == 200, answer.text
        result: dict[str, Any] = answer.json()
        return result

    ahead = send("ahead", version + 3)
    assert (ahead["status"], ahead["code"], ahead["version"]) == ("rejected", "future_version", version), ahead
    assert ahead["reason"] == (f"the match is at version {version}; expected_version {version + 3} "
                               f"has not happened"), ahead
    assert c.get(f"/matches/{match_id}").json()["version"] == version, "nothing changed"
    if version > 0:
        stale = send("stale", version - 1)
        assert (stale["status"], stale["code"], stale["version"]) == ("rejected", "conflict", version), stale
    played = send("now", version)
    assert played["status"] == "accepted", played
    again = send("behind", version)
    assert (again["code"], again["version"]) == ("conflict", played["version"]), again


def test_the_websocket_answers_the_same_codes(gateway_stack: GatewayStack) -> None:
    c = httpx.Client(base_url=gateway_stack.url, timeout=30)
    match_id, token, mine = acting(c)
    version, command = mine["version"], mine["legal"][0]
    with ws_connect(gateway_stack.ws_url) as ws:
        ws.send(json.dumps({"kind": "subscribe", "match_id": match_id, "token": token}))
        codes = {}
        for key, expected in [("ahead", version + 1), ("stale", version - 1)]:
            ws.send(json.dumps({"kind": "command", "cid": key, "match_id": match_id, "idempotency_key": key,
                                "expected_version": expected, **command}))
            while True:
                message = json.loads(ws.recv(timeout=10))
                if message["kind"] == "result" and message["cid"] == key:
                    codes[key] = message["result"]["code"]
                    break
        assert codes == {"ahead": "future_version", "stale": "conflict"}
