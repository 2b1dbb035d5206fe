"""The small doors an attacker tries first, on a real gateway process: bodies only as JSON or msgpack (a foreign
page's form or text/plain post is refused with 415 and stores nothing), the API page runs no script, loads
nothing from elsewhere and cannot be framed, ``/redoc`` is gone, an echoed ``cid`` is bounded, and a reused
idempotency key is refused on the WebSocket too."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
import redis

from tests.gateway.attack_kit import Socket, assert_problem, auth, client, create_match
from tests.gateway.stack import GatewayStack

pytestmark = [pytest.mark.gateway, pytest.mark.redis]


@pytest.fixture
def http(stack: GatewayStack) -> Iterator[httpx.Client]:
    with client(stack.url) as c:
        yield c


def matches_in_redis(r: redis.Redis, stack: GatewayStack) -> int:
    k = stack.settings.keys
    return sum(int(r.zcard(k.matches(p, "open"))) for p in range(k.partitions))


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded",
                                          "multipart/form-data; boundary=x", None])
def test_a_body_that_is_not_json_or_msgpack_is_refused_with_415(stack: GatewayStack, r: redis.Redis,
                                                                 http: httpx.Client, content_type: str | None) -> None:
    before = matches_in_redis(r, stack)
    headers = {"Content-Type": content_type} if content_type else {}
    body = b'{"game": "nim", "seats": 2}'  # valid JSON: what a foreign page's text/plain fetch would carry
    answer = http.post("/matches", content=body, headers=headers)
    assert assert_problem(answer, 415)["code"] == "unsupported_media_type"
    match = create_match(http, "nim", 2)
    command = b'{"idempotency_key": "k", "type": "take", "body": {"n": 1}}'
    answer = http.post(f"/matches/{match.id}/commands", content=command, headers={**headers, **auth(match.tokens[0])})
    assert assert_problem(answer, 415)["code"] == "unsupported_media_type"
    assert not r.hexists(stack.settings.keys.sent(match.id), "0.k")
    assert matches_in_redis(r, stack) == before  # the refused creation stored nothing (the other one runs)
    # JSON with a charset parameter, and a body-less join, still pass
    assert http.post("/matches", content=body, headers={"Content-Type": "application/json; charset=utf-8"}
                     ).status_code == 201


def test_the_api_page_runs_no_script_and_cannot_be_framed(http: httpx.Client) -> None:
    page = http.get("/docs")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    csp = page.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp and "script-src" not in csp
    assert page.headers["x-frame-options"] == "DENY"
    assert "<script" not in page.text.lower() and not re.search(r"(src|href)=['\"]?https?://", page.text)
    for path in ("/matches/{match_id}/commands", "/matches", "/games"):  # every route is on it
        assert f"<code>{path}</code>" in page.text
    assert "<td>415</td>" in page.text  # bodies' media types are documented on it
    assert http.get("/redoc").status_code == 404


def test_an_echoed_cid_is_bounded(stack: GatewayStack) -> None:
    with Socket(stack.ws_url) as ws:
        ws.send({"kind": "ping", "cid": "x" * 60_000})
        pong = ws.until(lambda m: m.get("kind") == "pong")
        assert pong["cid"] == "x" * 64


def test_a_reused_idempotency_key_is_refused_on_the_websocket(stack: GatewayStack, http: httpx.Client) -> None:
    match = create_match(http, "nim", 2)
    with Socket(stack.ws_url) as ws:
        ws.send({"kind": "subscribe", "match_id": match.id, "token": match.tokens[0], "cid": "s"})
        ws.until(lambda m: m.get("kind") == "subscribed")
        send = {"kind": "command", "match_id": match.id, "idempotency_key": "same", "type": "take"}
        ws.send({**send, "body": {"n": 1}, "cid": "a"})
        first = ws.until(lambda m: m.get("cid") == "a")
        assert first["kind"] == "result" and first["result"]["status"] == "accepted", first
        ws.send({**send, "body": {"n": 1}, "cid": "b"})  # the same command again: its first result
        assert ws.until(lambda m: m.get("cid") == "b")["result"] == first["result"]
        ws.send({**send, "body": {"n": 2}, "cid": "c"})  # another command under that key
        refused = ws.until(lambda m: m.get("cid") == "c")
        assert (refused["kind"], refused["code"]) == ("error", "idempotency_key_reused"), refused
