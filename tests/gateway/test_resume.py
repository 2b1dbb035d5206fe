"""Views, events and resuming over the gateway's WebSocket (docs/gateway.md, "Resuming"), against a real stack:
a `view` comes at the last version of each command (a command of several events skips versions; the events
carry every one), and a subscription resumes views after ``after_version`` (the last *view* received) and
events after ``events_after_version`` (the last *event* received): no gap, no repeat, however the connection
was cut between a command's events and its view."""

from __future__ import annotations

import json
import random
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


def running(c: httpx.Client, game: str, seats: int) -> tuple[str, list[str]]:
    created = c.post("/matches", json={"game": game, "seats": seats})
    assert created.status_code == 201, created.text
    match_id = created.json()["match_id"]
    tokens = [c.post(f"/matches/{match_id}/seats", json={"seat": s}).json()["token"] for s in range(seats)]
    return match_id, tokens


def public_after(c: httpx.Client, match_id: str, version: int) -> dict[str, Any]:
    answer = c.get(f"/matches/{match_id}/views/public", params={"after_version": version, "wait_s": 10})
    assert answer.status_code == 200, answer.text
    record: dict[str, Any] = answer.json()
    return record


def play(c: httpx.Client, match_id: str, tokens: list[str], rng: random.Random, key: str) -> dict[str, Any]:
    """One command of the seat to act, drawn from its legal choices: its (accepted) result."""
    version = c.get(f"/matches/{match_id}").json()["version"]
    public = public_after(c, match_id, version - 1)
    seat = public["to_act"][0]
    mine = c.get(f"/matches/{match_id}/views/me", headers=bearer(tokens[seat]),
                 params={"after_version": version - 1, "wait_s": 10}).json()
    choice = Choice.model_validate(rng.choice(mine["legal"]))
    answer = c.post(f"/matches/{match_id}/commands", headers=bearer(tokens[seat]), params={"wait_s": 10},
                    json={"idempotency_key": key, "type": choice.type, "body": choice.sample(rng),
                          "expected_version": mine["version"]})
    result: dict[str, Any] = answer.json()
    assert result["status"] == "accepted", result
    return result


def recv(ws: Any, timeout_s: float = 10.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        message: dict[str, Any] = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
        if message["kind"] in ("view", "event"):
            return message


def kinds(messages: list[dict[str, Any]]) -> list[tuple[str, int]]:
    return [(m["kind"], m["event"]["version"] if m["kind"] == "event" else m["version"]) for m in messages]


def test_a_view_at_each_commands_last_version_the_events_in_between(gateway_stack: GatewayStack) -> None:
    c = httpx.Client(base_url=gateway_stack.url, timeout=30)
    match_id, tokens = running(c, "moderne-zeiten", 3)
    start = public_after(c, match_id, 0)["version"]
    rng = random.Random(5)
    with ws_connect(gateway_stack.ws_url) as ws:
        ws.send(json.dumps({"kind": "subscribe", "match_id": match_id, "events": True}))
        got = [recv(ws) for _ in range(start + 1)]
        assert kinds(got) == [("event", v) for v in range(1, start + 1)] + [("view", start)]
        several = 0
        for n in range(12):
            result = play(c, match_id, tokens, rng, f"k{n}")
            first = result["version"] - result["events"] + 1
            got = [recv(ws) for _ in range(result["events"] + 1)]
            assert kinds(got) == [("event", v) for v in range(first, result["version"] + 1)] + [
                ("view", result["version"])], "one view per command, at its last version, after its events"
            several += result["events"] > 1
            if got[-1]["finished"]:
                break
        assert several, "no command of several events was played: the test would show no skipped version"


def test_resuming_views_and_events_each_from_its_own_last_version(gateway_stack: GatewayStack) -> None:
    c = httpx.Client(base_url=gateway_stack.url, timeout=30)
    match_id, tokens = running(c, "nim", 2)
    rng = random.Random(7)
    last_view = public_after(c, match_id, 0)["version"]
    done = [play(c, match_id, tokens, rng, f"k{n}") for n in range(2)]
    last_event = done[-1]["version"]
    seat = public_after(c, match_id, last_event - 1)["to_act"][0]
    # The connection was cut after the events of two commands but before their views: the client holds view
    # `last_view` and events up to `last_event`. It gets the newest view, and no event again.
    with ws_connect(gateway_stack.ws_url) as ws:
        ws.send(json.dumps({"kind": "subscribe", "match_id": match_id, "token": tokens[seat], "events": True,
                            "after_version": last_view, "events_after_version": last_event}))
        view = recv(ws)
        assert kinds([view]) == [("view", last_event)] and view["legal"]
        result = play(c, match_id, tokens, rng, "after")
        assert kinds([recv(ws), recv(ws)]) == [("event", result["version"]), ("view", result["version"])]
    # The other way round: the client holds the newest view but lost two events: they come, no view again.
    with ws_connect(gateway_stack.ws_url) as ws:
        ws.send(json.dumps({"kind": "subscribe", "match_id": match_id, "token": tokens[seat], "events": True,
                            "after_version": result["version"], "events_after_version": result["version"] - 2}))
        assert kinds([recv(ws), recv(ws)]) == [("event", result["version"] - 1), ("event", result["version"])]
        with pytest.raises(TimeoutError):
            recv(ws, timeout_s=1.0)
    # Without events_after_version, events resume after after_version (as before it existed).
    with ws_connect(gateway_stack.ws_url) as ws:
        ws.send(json.dumps({"kind": "subscribe", "match_id": match_id, "token": tokens[seat], "events": True,
                            "after_version": last_view}))
        got = [recv(ws) for _ in range(result["version"] - last_view + 1)]
        assert kinds(got) == [("event", v) for v in range(last_view + 1, result["version"] + 1)] + [
            ("view", result["version"])]
