"""Play a two-seat nim match to its end over the gateway's HTTP API only (no client library): the ACL and
archive tests use it to drive the real processes."""

from __future__ import annotations

from typing import Any

import httpx


def get_json(http: httpx.Client, path: str, token: str | None = None, **params: Any) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    answer = http.get(path, params=params, headers=headers)
    assert answer.status_code == 200, f"GET {path}: {answer.status_code} {answer.text}"
    return answer.json()


def play_nim(http: httpx.Client, reveal_log: bool = True) -> tuple[str, dict[int, str], int]:
    """Create, join both seats, play the first legal command until the end: (match id, tokens, moves)."""
    created = http.post("/matches", json={"game": "nim", "seats": 2, "reveal_log": reveal_log})
    assert created.status_code == 201, created.text
    match_id, version = created.json()["match_id"], created.json()["version"]
    tokens = {}
    for _ in range(2):
        joined = http.post(f"/matches/{match_id}/seats", json={})
        assert joined.status_code == 201, joined.text
        tokens[joined.json()["seat"]] = joined.json()["token"]
    assert get_json(http, f"/matches/{match_id}")["status"] == "running"
    for moves in range(100):
        public = get_json(http, f"/matches/{match_id}/views/public", after_version=version - 1, wait_s=10)["view"]
        if public["finished"]:
            return match_id, tokens, moves
        seat = public["to_act"][0]
        mine = get_json(http, f"/matches/{match_id}/views/me", tokens[seat], after_version=version - 1, wait_s=10)
        command = mine["legal"][0]
        sent = http.post(f"/matches/{match_id}/commands", params={"wait_s": 10},
                         headers={"Authorization": f"Bearer {tokens[seat]}"},
                         json={"idempotency_key": f"move-{moves}", "type": command["type"],
                               "body": command["body"], "expected_version": mine["version"]})
        assert sent.status_code == 200, sent.text
        result = sent.json()
        assert result["status"] == "accepted", str(result)
        version = result["version"]
    raise AssertionError("nim did not end in 100 moves")
