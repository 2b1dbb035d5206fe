"""Request bodies are read strictly (docs/gateway.md, "Formats"), against a real stack: creating and joining a
match, like a command, refuses a value of the wrong JSON type instead of converting it ("1" is no integer,
"yes" and 1 are no booleans), in JSON and in msgpack alike, naming the field; a game's options too (422
bad_options naming the option), whatever the game's own options model would let through."""

from __future__ import annotations

import json
from typing import Any

import httpx
import msgpack
import pytest
from websockets.sync.client import connect as ws_connect

from tests.gateway.stack import GatewayStack

pytestmark = [pytest.mark.redis, pytest.mark.gateway]

MSGPACK = {"Content-Type": "application/msgpack", "Accept": "application/msgpack"}
FORMATS = ["json", "msgpack"]


def post(c: httpx.Client, path: str, body: dict[str, Any], fmt: str,
         headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    if fmt == "json":
        answer = c.post(path, json=body, headers=headers or {})
        return answer.status_code, answer.json()
    answer = c.post(path, content=msgpack.packb(body), headers={**MSGPACK, **(headers or {})})
    assert answer.headers["content-type"].startswith("application/msgpack"), answer.headers
    return answer.status_code, msgpack.unpackb(answer.content)


@pytest.fixture(scope="module")
def c(gateway_stack: GatewayStack) -> httpx.Client:
    return httpx.Client(base_url=gateway_stack.url, timeout=30)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(("body", "field"), [
    ({"game": "nim", "seats": "2"}, "body.seats"),
    ({"game": "nim", "seats": 2.0}, "body.seats"),
    ({"game": "nim", "seats": True}, "body.seats"),
    ({"game": "nim", "seats": 2, "reveal_log": "yes"}, "body.reveal_log"),
    ({"game": "nim", "seats": 2, "reveal_log": 1}, "body.reveal_log"),
    ({"game": 7, "seats": 2}, "body.game"),
    ({"game": "nim", "seats": 2, "options": []}, "body.options"),
])
def test_create_refuses_a_value_of_another_type(c: httpx.Client, fmt: str, body: dict[str, Any], field: str) -> None:
    status, problem = post(c, "/matches", body, fmt)
    assert (status, problem["code"], problem["field"]) == (400, "bad_request", field), problem


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(("game", "options", "field"), [
    ("moderne-zeiten", {"forced_move": "yes"}, "body.options.forced_move"),
    ("moderne-zeiten", {"crash_after_move": 0}, "body.options.crash_after_move"),
    ("modern-world", {"national_identity": "true"}, "body.options.national_identity"),
    ("mad-zeppelin", {"mode": 1}, "body.options.mode"),
    ("mad-zeppelin", {"mode": "sprint"}, "body.options.mode"),
    ("nim", {"max_take": "3"}, "body.options.max_take"),  # nim's own options model is lax: the gateway is not
    ("nim", {"max_take": 3.0}, "body.options.max_take"),
    ("nim", {"nosuch": 1}, "body.options.nosuch"),
])
def test_options_of_another_type_are_bad_options_naming_the_option(c: httpx.Client, fmt: str, game: str,
                                                                   options: dict[str, Any], field: str) -> None:
    seats = 3 if game == "moderne-zeiten" else 2
    status, problem = post(c, "/matches", {"game": game, "seats": seats, "options": options}, fmt)
    assert (status, problem["code"], problem["field"]) == (422, "bad_options", field), problem
    assert field.split(".")[-1] in problem["detail"], problem


@pytest.mark.parametrize("fmt", FORMATS)
def test_options_of_the_right_type_are_taken_as_given(c: httpx.Client, fmt: str) -> None:
    status, summary = post(c, "/matches", {"game": "moderne-zeiten", "seats": 3, "reveal_log": False,
                                           "options": {"forced_move": False}}, fmt)
    assert status == 201, summary
    assert summary["options"]["forced_move"] is False and summary["reveal_log"] is False


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("seat", ["1", 1.0, True, [1]])
def test_join_refuses_a_seat_of_another_type(c: httpx.Client, fmt: str, seat: Any) -> None:
    status, created = post(c, "/matches", {"game": "nim", "seats": 2}, fmt)
    assert status == 201, created
    path = f"/matches/{created['match_id']}/seats"
    status, problem = post(c, path, {"seat": seat}, fmt)
    assert (status, problem["code"], problem["field"]) == (400, "bad_request", "body.seat"), problem
    assert c.get(f"/matches/{created['match_id']}").json()["seats_free"] == [0, 1], "nothing was taken"
    status, joined = post(c, path, {"seat": 1}, fmt)
    assert status == 201 and joined["seat"] == 1, joined


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_command_and_a_subscription_refuse_values_of_another_type(gateway_stack: GatewayStack, c: httpx.Client,
                                                                    fmt: str) -> None:
    _, created = post(c, "/matches", {"game": "nim", "seats": 2}, fmt)
    match_id = created["match_id"]
    token = post(c, f"/matches/{match_id}/seats", {}, fmt)[1]["token"]
    post(c, f"/matches/{match_id}/seats", {}, fmt)
    status, problem = post(c, f"/matches/{match_id}/commands",
                           {"idempotency_key": "k", "type": "take", "body": {"n": 1}, "expected_version": "4"},
                           fmt, headers={"Authorization": f"Bearer {token}"})
    assert (status, problem["field"]) == (400, "body.expected_version"), problem
    with ws_connect(gateway_stack.ws_url) as ws:
        for bad, field in [({"after_version": "0"}, "after_version"), ({"events": 1}, "events")]:
            message = {"kind": "subscribe", "cid": "s", "match_id": match_id, **bad}
            ws.send(json.dumps(message) if fmt == "json" else msgpack.packb(message))
            raw = ws.recv(timeout=10)
            error = json.loads(raw) if isinstance(raw, str) else msgpack.unpackb(raw)
            assert error["kind"] == "error" and error["code"] == "bad_request" and field in error["message"], error
