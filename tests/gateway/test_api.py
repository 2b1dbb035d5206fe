"""The gateway's HTTP API and WebSocket protocol as documented (docs/gateway.md), against a real stack:
lobby, commands (idempotent, 202 when slow), long-polled views, logs per perspective, msgpack, health,
WebSocket subscriptions with resume and events."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import msgpack
import pytest
from websockets.sync.client import connect as ws_connect

from services.games.registry import registration_of
from tests import registered
from tests.gateway.stack import GatewayStack

pytestmark = [pytest.mark.redis, pytest.mark.gateway]


def client(stack: GatewayStack) -> httpx.Client:
    return httpx.Client(base_url=stack.url, timeout=30)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_match(c: httpx.Client, game: str = "nim", seats: int = 2, **extra: Any) -> tuple[str, list[str]]:
    created = c.post("/matches", json={"game": game, "seats": seats, **extra})
    assert created.status_code == 201, created.text
    match_id = created.json()["match_id"]
    tokens = []
    for _ in range(seats):
        joined = c.post(f"/matches/{match_id}/seats", json={})
        assert joined.status_code == 201, joined.text
        tokens.append(joined.json()["token"])
    return match_id, tokens


def to_act(c: httpx.Client, match_id: str) -> tuple[int, dict[str, Any]]:
    """The seat to act and the public record, once projected (the projector may not have written the set-up's
    views yet: a long poll after version 0 waits for them, the match having begun)."""
    public = c.get(f"/matches/{match_id}/views/public", params={"after_version": 0, "wait_s": 10}).json()
    return public["view"]["to_act"][0], public


def play_one(c: httpx.Client, match_id: str, tokens: list[str], key: str) -> dict[str, Any]:
    seat, _ = to_act(c, match_id)
    mine = c.get(f"/matches/{match_id}/views/me", headers=bearer(tokens[seat])).json()
    command = mine["legal"][0]
    answer = c.post(f"/matches/{match_id}/commands", headers=bearer(tokens[seat]),
                    json={"idempotency_key": key, **command})
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()
    return result


def wait_public(c: httpx.Client, match_id: str, version: int) -> dict[str, Any]:
    answer = c.get(f"/matches/{match_id}/views/public", params={"after_version": version - 1, "wait_s": 10})
    assert answer.status_code == 200, answer.text
    record: dict[str, Any] = answer.json()
    return record


def test_games_list_every_builtin_game_with_options(gateway_stack: GatewayStack) -> None:
    """Each game as its registration says: the title and the URL of its web board, which the gateway serves."""
    http = client(gateway_stack)
    games = {g["name"]: g for g in http.get("/games").json()["games"]}
    assert set(registered.GAMES) <= set(games)
    for name in registered.GAMES:
        registration = registration_of(name)
        assert games[name]["title"] == registration.title and games[name]["board"] == registration.web_board_url
        assert games[name]["secret_commands"] == sorted(registration.secret_commands)
        if registration.web_board is not None:
            board = http.get(games[name]["board"])
            assert board.status_code == 200 and "javascript" in board.headers["content-type"]
            assert board.text == registration.web_board.read_text()
    assert games["nim"]["board"] is None and http.get("/web/games/nim.js").status_code == 404
    mz = games["moderne-zeiten"]
    assert mz["min_seats"] == 3 and mz["max_seats"] == 5 and "bid" in mz["commands"]
    assert {o["name"] for o in mz["options"]} == {"forced_move", "move_needs_play", "crash_after_move"}
    assert mz["secret_commands"] == [] and "draft" in games["mad-zeppelin"]["secret_commands"]


def test_lobby_create_join_list(gateway_stack: GatewayStack) -> None:
    c = client(gateway_stack)
    created = c.post("/matches", json={"game": "nim", "seats": 2}).json()
    match_id = created["match_id"]
    assert created["status"] == "open" and created["seats_free"] == [0, 1]
    assert "seed" not in created
    listed = c.get("/matches", params={"status": "open"}).json()["matches"]
    assert match_id in [m["match_id"] for m in listed]
    first = c.post(f"/matches/{match_id}/seats", json={"seat": 1})
    assert first.status_code == 201 and first.json()["seat"] == 1 and first.json()["token"].startswith("1.")
    assert c.post(f"/matches/{match_id}/seats", json={"seat": 1}).json()["code"] == "conflict"
    assert c.post(f"/matches/{match_id}/seats", json={"seat": 9}).status_code == 400
    assert c.post(f"/matches/{match_id}/seats", json={}).json()["seat"] == 0
    full = c.post(f"/matches/{match_id}/seats", json={})
    assert full.status_code == 409 and full.headers["content-type"].startswith("application/problem+json")
    summary = c.get(f"/matches/{match_id}").json()
    assert summary["status"] == "running" and summary["seats_free"] == []
    bad = c.post("/matches", json={"game": "chess", "seats": 2})
    assert bad.status_code == 422 and bad.json()["code"] == "bad_options"
    assert c.post("/matches", json={"game": "nim", "seats": 99}).status_code == 400
    assert c.get("/matches/no-such-match").status_code == 404


def test_a_command_gets_its_result_and_a_resent_key_gets_the_same_one(gateway_stack: GatewayStack) -> None:
    c = client(gateway_stack)
    match_id, tokens = new_match(c)
    seat, public = to_act(c, match_id)
    body = {"idempotency_key": "move-1", "type": "take", "body": {"n": 1}}
    first = c.post(f"/matches/{match_id}/commands", headers=bearer(tokens[seat]), json=body).json()
    assert first["status"] == "accepted" and first["command_id"] == "move-1" and first["seat"] == seat
    again = c.post(f"/matches/{match_id}/commands", headers=bearer(tokens[seat]), json=body).json()
    assert again == first
    assert c.get(f"/matches/{match_id}").json()["version"] == first["version"], "applied once"
    fetched = c.get(f"/matches/{match_id}/commands/move-1", headers=bearer(tokens[seat]))
    assert fetched.status_code == 200 and fetched.json() == first
    assert c.get(f"/matches/{match_id}/commands/never-sent", headers=bearer(tokens[seat])).status_code == 404
    wrong_turn = c.post(f"/matches/{match_id}/commands", headers=bearer(tokens[seat]),
                        json={"idempotency_key": "early", "type": "take", "body": {"n": 1}}).json()
    assert wrong_turn["status"] == "rejected" and wrong_turn["code"] == "not_your_turn" and wrong_turn["reason"]
    assert public["version"] < first["version"]


def test_a_slow_result_is_202_with_a_location_that_answers_later(gateway_stack: GatewayStack) -> None:
    c = client(gateway_stack)
    match_id, tokens = new_match(c)
    seat, _ = to_act(c, match_id)
    answer = c.post(f"/matches/{match_id}/commands", params={"wait_s": 0}, headers=bearer(tokens[seat]),
                    json={"idempotency_key": "slow", "type": "take", "body": {"n": 1}})
    if answer.status_code == 202:  # the usual case with wait_s=0
        location = answer.json()["location"]
        assert answer.headers["location"] == location == f"/matches/{match_id}/commands/slow"
        later = c.get(location, params={"wait_s": 10}, headers=bearer(tokens[seat]))
        assert later.status_code == 200 and later.json()["status"] == "accepted"
    else:
        assert answer.status_code == 200


def test_views_long_poll_and_a_seat_sees_its_legal_commands(gateway_stack: GatewayStack) -> None:
    c = client(gateway_stack)
    match_id, tokens = new_match(c)
    seat, public = to_act(c, match_id)
    mine = c.get(f"/matches/{match_id}/views/me", headers=bearer(tokens[seat])).json()
    assert mine["key"] == str(seat) and mine["legal"], "the seat to act is told what it may send"
    other = c.get(f"/matches/{match_id}/views/me", headers=bearer(tokens[1 - seat])).json()
    assert other["legal"] == []
    again = c.get(f"/matches/{match_id}/views/seat/{seat}", headers=bearer(tokens[seat])).json()
    assert again.pop("server_ms") >= mine.pop("server_ms")  # (the gateway's time when it answered)
    assert again == mine
    forbidden = c.get(f"/matches/{match_id}/views/seat/{1 - seat}", headers=bearer(tokens[seat]))
    assert forbidden.status_code == 403 and forbidden.json()["code"] == "forbidden"
    started = time.monotonic()
    nothing = c.get(f"/matches/{match_id}/views/public", params={"after_version": public["version"], "wait_s": 1})
    assert nothing.status_code == 204 and time.monotonic() - started >= 0.9
    result = play_one(c, match_id, tokens, "lp-1")
    newer = wait_public(c, match_id, result["version"])
    assert newer["version"] >= result["version"] > public["version"]
    assert c.get(f"/matches/{match_id}/views/me").status_code == 401


def test_logs_running_per_seat_finished_as_the_match_says(gateway_stack: GatewayStack) -> None:
    c = client(gateway_stack)
    for reveal in (True, False):
        match_id, tokens = new_match(c, reveal_log=reveal)
        assert c.get(f"/matches/{match_id}/log").status_code == 401, "a running match's log needs a seat"
        running = c.get(f"/matches/{match_id}/log", headers=bearer(tokens[0])).json()
        assert running["perspective"] == "seat:0"
        assert all(e["visible_to"] is None or 0 in e["visible_to"] for e in running["events"])
        n = 0
        while not c.get(f"/matches/{match_id}/views/public").json()["view"]["finished"]:
            result = play_one(c, match_id, tokens, f"log-{n}")
            wait_public(c, match_id, result["version"])
            n += 1
        public = c.get(f"/matches/{match_id}/log").json()
        seat1 = c.get(f"/matches/{match_id}/log", headers=bearer(tokens[1])).json()
        if reveal:
            assert public["perspective"] == seat1["perspective"] == "full"
            assert any(e["visible_to"] is not None for e in public["events"]), "secrets revealed at the end"
        else:
            assert public["perspective"] == "public" and seat1["perspective"] == "seat:1"
            assert all(e["visible_to"] is None for e in public["events"])
            assert all(e["command"] is None or e["seat"] == 1 for e in seat1["events"])
        versions = [e["version"] for e in public["events"]]
        assert versions == list(range(1, len(versions) + 1))
        tail = c.get(f"/matches/{match_id}/log", params={"after_version": 3}).json()["events"]
        assert tail[0]["version"] == 4


def test_msgpack_in_and_out(gateway_stack: GatewayStack) -> None:
    c = client(gateway_stack)
    headers = {"Content-Type": "application/msgpack", "Accept": "application/msgpack"}
    created = c.post("/matches", content=msgpack.packb({"game": "nim", "seats": 2}), headers=headers)
    assert created.status_code == 201 and created.headers["content-type"] == "application/msgpack"
    match_id = msgpack.unpackb(created.content)["match_id"]
    bad = c.post(f"/matches/{match_id}/seats", content=b"\xc1\xc1", headers=headers)
    assert bad.status_code == 400 and msgpack.unpackb(bad.content)["code"] == "bad_request"


def test_problems_name_the_field_and_health_and_metrics_answer(gateway_stack: GatewayStack) -> None:
    c = client(gateway_stack)
    bad = c.post("/matches", json={"game": "nim", "seats": "two"})
    assert bad.status_code == 400 and bad.json()["field"] == "body.seats"
    assert c.post("/matches", content=b"{", headers={"Content-Type": "application/json"}).status_code == 400
    big = c.post("/matches", content=b"x" * 70_000, headers={"Content-Type": "application/json"})
    assert big.status_code == 413 and big.json()["code"] == "too_large"
    assert c.get("/healthz").json()["status"] == "ok" and c.get("/readyz").status_code == 200
    assert "airship_gateway_requests_total" in c.get("/metrics").text


def _recv(ws: Any, kind: str, timeout_s: float = 15.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        message: dict[str, Any] = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
        if message["kind"] == kind:
            return message


def test_websocket_views_results_resume_and_events(gateway_stack: GatewayStack) -> None:
    c = client(gateway_stack)
    match_id, tokens = new_match(c)
    seat, public = to_act(c, match_id)
    with ws_connect(gateway_stack.ws_url) as ws:
        ws.send(json.dumps({"kind": "subscribe", "cid": "s1", "match_id": match_id, "token": tokens[seat],
                            "events": True}))
        subscribed = _recv(ws, "subscribed")
        assert subscribed["cid"] == "s1" and subscribed["seat"] == seat
        events = [_recv(ws, "event") for _ in range(public["version"])]
        assert [e["event"]["version"] for e in events] == list(range(1, public["version"] + 1))
        view = _recv(ws, "view")
        assert view["key"] == str(seat) and view["legal"]
        ws.send(json.dumps({"kind": "command", "cid": "c1", "match_id": match_id, "idempotency_key": "ws-1",
                            **view["legal"][0]}))
        result = _recv(ws, "result")
        assert result["cid"] == "c1" and result["result"]["status"] == "accepted"
        last = _recv(ws, "view")
        assert last["version"] == result["result"]["version"]
        ws.send(json.dumps({"kind": "ping", "cid": "p"}))
        assert _recv(ws, "pong")["cid"] == "p"
    # the other seat plays over HTTP; a reconnect resumes after the last version seen: no gap, no repeat
    result = play_one(c, match_id, tokens, "http-1")
    with ws_connect(gateway_stack.ws_url) as ws:
        ws.send(json.dumps({"kind": "subscribe", "match_id": match_id, "token": tokens[seat],
                            "after_version": last["version"], "events": True}))
        _recv(ws, "subscribed")
        resumed = [_recv(ws, "event") for _ in range(result["version"] - last["version"])]
        assert [e["event"]["version"] for e in resumed] == list(range(last["version"] + 1, result["version"] + 1))
        assert _recv(ws, "view")["version"] >= result["version"]
        ws.send(json.dumps({"kind": "command", "match_id": match_id, "idempotency_key": "ws-1",
                            "type": "take", "body": {"n": 1}}))
        assert _recv(ws, "result")["result"]["version"] == last["version"], "a resent key: its first result"


def test_websocket_spectator_and_errors(gateway_stack: GatewayStack) -> None:
    c = client(gateway_stack)
    match_id, tokens = new_match(c)
    with ws_connect(gateway_stack.ws_url) as ws:
        ws.send("{not json")
        assert _recv(ws, "error")["code"] == "bad_request"
        ws.send(json.dumps({"kind": "launch"}))
        assert _recv(ws, "error")["code"] == "bad_request"
        ws.send(json.dumps({"kind": "subscribe", "cid": "x", "match_id": match_id, "token": "0." + "0" * 48}))
        assert _recv(ws, "error") == {"kind": "error", "cid": "x", "code": "unauthorized",
                                      "message": "wrong seat token for this match"}
        ws.send(json.dumps({"kind": "subscribe", "match_id": match_id}))
        assert _recv(ws, "subscribed")["seat"] is None
        assert _recv(ws, "view")["key"] == "public"
        ws.send(json.dumps({"kind": "command", "cid": "c", "match_id": match_id, "idempotency_key": "k",
                            "type": "take", "body": {"n": 1}}))
        assert _recv(ws, "error")["code"] == "unauthorized", "a spectator cannot send commands"
        ws.send(msgpack.packb({"kind": "ping", "cid": "bin"}))
        assert msgpack.unpackb(ws.recv(timeout=10))["kind"] == "pong", "binary frames are answered in msgpack"
    del tokens
