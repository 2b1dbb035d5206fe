"""The gateway clients' handling of answers, without a gateway: problem documents to errors, 202 polling,
rate limits, token bookkeeping (httpx's mock transport stands in for the server)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from services.client import (
    AsyncGatewayClient,
    BadRequest,
    Conflict,
    GatewayClient,
    GatewayError,
    NotFound,
    RateLimited,
    Timeout,
    Unavailable,
)
from services.client.common import base_url, seat_of_token, ws_url
from services.client.errors import error_for, ws_error
from services.pipeline.direct import Timeout as PipelineTimeout

TOKEN = "1." + "c" * 48


def problem(status: int, code: str, detail: str) -> httpx.Response:
    return httpx.Response(status, json={"type": "about:blank", "title": code, "status": status, "code": code,
                                        "detail": detail, "field": None},
                          headers={"Content-Type": "application/problem+json"})


def result(key: str, version: int = 5) -> dict[str, Any]:
    return {"command_id": key, "match_id": "m1", "seat": 1, "status": "accepted", "version": version, "events": 1,
            "code": None, "reason": None}


def test_errors_by_status_with_one_line_messages() -> None:
    assert isinstance(error_for(404, {"code": "not_found", "detail": "no such match"}), NotFound)
    assert isinstance(error_for(409, {"code": "conflict", "detail": "seat 0 is taken"}), Conflict)
    assert isinstance(error_for(503, None), Unavailable) and isinstance(error_for(502, "x"), Unavailable)
    assert type(error_for(418, {})) is GatewayError
    limited = error_for(429, {"code": "rate_limited", "detail": "slow down"}, "2.5")
    assert isinstance(limited, RateLimited) and limited.retry_after_s == 2.5
    long = error_for(400, {"code": "bad_request", "detail": "a\nb\n" + "x" * 1000})
    assert "\n" not in str(long) and len(str(long)) <= 300 and isinstance(long, BadRequest)
    assert isinstance(ws_error("not_found", "no such match"), NotFound)
    assert issubclass(Timeout, PipelineTimeout) and issubclass(Unavailable, ConnectionError)


def test_urls_and_tokens() -> None:
    assert base_url("localhost:8000/") == "http://localhost:8000"
    assert ws_url("https://example.org") == "wss://example.org/ws"
    assert seat_of_token(TOKEN) == 1 and seat_of_token("nonsense") is None


def test_a_pending_command_is_polled_with_the_token_that_sent_it() -> None:
    seen: list[tuple[str, str | None]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append((f"{request.method} {request.url.path}", request.headers.get("Authorization")))
        if request.method == "POST":
            key = json.loads(request.content)["idempotency_key"]
            return httpx.Response(202, json={"status": "pending", "idempotency_key": key,
                                             "location": f"/matches/m1/commands/{key}"})
        if len(seen) < 4:
            return httpx.Response(202, json={"status": "pending", "idempotency_key": "k1", "location": "-"})
        return httpx.Response(200, json=result("k1"))

    with GatewayClient("http://gw", transport=httpx.MockTransport(handler)) as client:
        answer = client.call("m1", 1, TOKEN, "take", {"n": 1}, timeout_s=5, command_id="k1")
    assert answer.command_id == "k1" and answer.status == "accepted"
    assert seen[0] == ("POST /matches/m1/commands", f"Bearer {TOKEN}")
    assert all(s == ("GET /matches/m1/commands/k1", f"Bearer {TOKEN}") for s in seen[1:])


def test_a_command_that_never_resolves_times_out() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(202, json={"status": "pending", "idempotency_key": "k", "location": "-"})

    with GatewayClient("http://gw", transport=httpx.MockTransport(handler)) as client, \
            pytest.raises(Timeout, match="no result"):
        client.call("m1", 1, TOKEN, "take", {}, timeout_s=0.3, command_id="k")


def test_rate_limits_are_waited_out_a_few_times(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        if len(calls) < 3:
            response = problem(429, "rate_limited", "too many requests")
            response.headers["Retry-After"] = "0"
            return response
        return httpx.Response(200, json={"games": []})

    with GatewayClient("http://gw", transport=httpx.MockTransport(handler)) as client:
        assert client.games() == [] and len(calls) == 3

    def always(request: httpx.Request) -> httpx.Response:
        return problem(429, "rate_limited", "too many requests")

    monkeypatch.setattr("services.client.http.time.sleep", lambda s: None)
    with GatewayClient("http://gw", transport=httpx.MockTransport(always)) as client, pytest.raises(RateLimited):
        client.games()


def test_seat_views_use_the_held_token_and_204_means_nothing_new() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/seats"):
            return httpx.Response(201, json={"match_id": "m1", "seat": 1, "token": TOKEN})
        if request.url.path.endswith("/views/me"):
            assert request.headers["Authorization"] == f"Bearer {TOKEN}"
            if request.url.params.get("after_version") == "9":
                return httpx.Response(204)
            return httpx.Response(200, json={"match_id": "m1", "key": "1", "version": 9, "view": {"pile": 3},
                                             "legal": [{"type": "take", "body": {"n": 1}}]})
        return problem(404, "not_found", "no such match")

    with GatewayClient("http://gw", transport=httpx.MockTransport(handler)) as client:
        assert client.join("m1") == (1, TOKEN)
        record = client.view("m1", 1)
        assert record is not None and record.version == 9 and record.legal
        with pytest.raises(Timeout):
            client.wait_view("m1", 1, 10, timeout_s=0.2)
        with pytest.raises(NotFound, match="no such match"):
            client.view("m1", "public")


def test_the_async_client_maps_errors_alike() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return problem(404, "not_found", "no such match")

    async def run() -> None:
        async with AsyncGatewayClient("http://gw", transport=httpx.MockTransport(handler)) as client:
            with pytest.raises(NotFound, match="no such match"):
                await client.match("x")

    asyncio.run(run())
