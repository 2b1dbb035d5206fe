"""The gateway's routes for the web app, over HTTP against a real stack with the bots process: flagging seats for
the service's bots (refusals as problems, the bots' list, the bots joining through the lobby), the replay of a
finished match (who may follow which perspective), the page and its security headers."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from services.bots.base import RandomBot
from services.bots.sdk import SeatRunner
from services.client.http import GatewayClient
from services.gateway.bot_flags import FLAG_BURST_S
from tests.gateway.stack import GatewayStack
from tests.web.conftest import FLAG_RPS

pytestmark = [pytest.mark.gateway, pytest.mark.redis]
PROBLEM = "application/problem+json"


@pytest.fixture(scope="module")
def http(web_stack: GatewayStack) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=web_stack.url, timeout=30) as client:
        yield client


def create(http: httpx.Client, game: str = "mad-zeppelin", seats: int = 2, **extra: Any) -> str:
    answer = http.post("/matches", json={"game": game, "seats": seats, **extra})
    assert answer.status_code == 201, answer.text
    return str(answer.json()["match_id"])


def join(http: httpx.Client, match_id: str, seat: int) -> str:
    answer = http.post(f"/matches/{match_id}/seats", json={"seat": seat})
    assert answer.status_code == 201, answer.text
    return str(answer.json()["token"])


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def refused(answer: httpx.Response, status: int, code: str) -> str:
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith(PROBLEM)
    assert answer.json()["code"] == code, answer.json()
    return str(answer.json()["detail"])


def wait_status(http: httpx.Client, match_id: str, status: str, timeout_s: float = 30.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        summary = http.get(f"/matches/{match_id}").json()
        if summary["status"] == status or time.monotonic() > deadline:
            assert summary["status"] == status, summary
            return dict(summary)
        time.sleep(0.1)


def finish_with_bots(web_stack: GatewayStack, http: httpx.Client, **extra: Any) -> tuple[str, str]:
    """A finished 2-seat Mad Zeppelin match: seat 0 played by a random bot here, seat 1 by the service's bots."""
    match_id = create(http, **extra)
    token = join(http, match_id, 0)
    assert http.post(f"/matches/{match_id}/bots", json={"bot": "random"}, headers=bearer(token)).status_code == 201
    wait_status(http, match_id, "running")
    with GatewayClient(web_stack.url) as client:
        assert SeatRunner(client, match_id, 0, token, RandomBot(7), timeout_s=30).run().finished
    return match_id, token


def test_seats_flagged_for_bots_are_taken_once_the_people_are_seated(http: httpx.Client) -> None:
    match_id = create(http, "moderne-zeiten", 3)
    flagged = http.post(f"/matches/{match_id}/bots", json={"seats": [2], "bot": "heuristic"})
    assert flagged.status_code == 201 and flagged.json()["bots"] == {"2": "heuristic"}
    assert http.get(f"/matches/{match_id}").json()["bots"] == {"2": "heuristic"}
    listed = [m for m in http.get("/matches", params={"status": "open"}).json()["matches"] if m["match_id"] == match_id]
    assert listed and listed[0]["bots"] == {"2": "heuristic"}
    # seats 0 and 1 are free and not the bots': the match is not ready for them, and stays open
    assert match_id not in {m["match_id"] for m in http.get("/bots/wanted").json()["matches"]}
    token = join(http, match_id, 0)
    time.sleep(1.0)  # (the bots process looks every 0.2 s)
    assert http.get(f"/matches/{match_id}").json()["seats_free"] == [1, 2]
    # the seated player gives the last free seat to bots too: the bots process joins both through the lobby
    answer = http.post(f"/matches/{match_id}/bots", json={"bot": "random"}, headers=bearer(token))
    assert answer.json()["bots"] == {"1": "random", "2": "heuristic"}
    summary = wait_status(http, match_id, "running")
    assert summary["seats_free"] == [] and summary["bots"] == {"1": "random", "2": "heuristic"}
    assert match_id not in {m["match_id"] for m in http.get("/bots/wanted").json()["matches"]}


def test_flagging_refusals_are_problems(http: httpx.Client) -> None:
    refused(http.post("/matches/nope/bots", json={}), 404, "not_found")
    match_id = create(http, "mad-zeppelin", 3)
    other = create(http, "mad-zeppelin", 2)
    mine, strangers = bearer(join(http, match_id, 0)), bearer(join(http, other, 0))
    path = f"/matches/{match_id}/bots"
    # once someone sits at the table, only a seated player may give its free seats to bots
    assert "seated" in refused(http.post(path, json={}), 401, "unauthorized")
    refused(http.post(path, json={}, headers=strangers), 401, "unauthorized")
    assert "seat 0 is taken" in refused(http.post(path, json={"seats": [0]}, headers=mine), 409, "conflict")
    refused(http.post(path, json={"seats": [5]}, headers=mine), 400, "bad_request")
    refused(http.post(path, json={"bot": "grandmaster"}, headers=mine), 400, "bad_request")
    refused(http.post(path, json={"seats": list(range(20))}, headers=mine), 400, "bad_request")
    assert http.post(path, json={"seats": [1]}, headers=mine).status_code == 201
    assert "flagged for bots already" in refused(http.post(path, json={"seats": [1]}, headers=mine), 409, "conflict")
    join(http, match_id, 2)  # the last free seat taken by a person: the match runs, the bots take seat 1
    wait_status(http, match_id, "running")
    refused(http.post(path, json={}, headers=mine), 409, "conflict")


def test_replay_perspectives_follow_the_log_being_public(web_stack: GatewayStack, http: httpx.Client) -> None:
    running = create(http)
    refused(http.get(f"/matches/{running}/replay"), 409, "conflict")

    public_log, _ = finish_with_bots(web_stack, http)
    overview = http.get(f"/matches/{public_log}/replay").json()
    assert overview["perspectives"] == ["public", "0", "1"] and overview["verification"]["ok"]
    assert len(overview["scores"]) == overview["last"] + 1 == len(overview["money"])
    assert overview["scores"][-1] == [float(s) for s in
                                      http.get(f"/matches/{public_log}/views/public").json()["outcome"]["scores"]]
    step = http.get(f"/matches/{public_log}/replay/3", params={"seat": 1}).json()
    assert step["version"] == 3 and step["seat"] == 1 and step["text"].startswith("== version 3 of ")
    refused(http.get(f"/matches/{public_log}/replay/{overview['last'] + 1}"), 404, "not_found")
    refused(http.get(f"/matches/{public_log}/replay/1", params={"seat": 5}), 404, "not_found")

    hidden_log, token = finish_with_bots(web_stack, http, reveal_log=False)
    assert http.get(f"/matches/{hidden_log}/replay").json()["perspectives"] == ["public"]
    assert "not public" in refused(http.get(f"/matches/{hidden_log}/replay/2", params={"seat": 1}), 403, "forbidden")
    mine = {"Authorization": f"Bearer {token}"}
    assert http.get(f"/matches/{hidden_log}/replay", headers=mine).json()["perspectives"] == ["public", "0"]
    assert http.get(f"/matches/{hidden_log}/replay/2", params={"seat": 0}, headers=mine).status_code == 200
    refused(http.get(f"/matches/{hidden_log}/replay/2", params={"seat": 1}, headers=mine), 403, "forbidden")
    wrong = {"Authorization": "Bearer 0." + "0" * 48}
    refused(http.get(f"/matches/{hidden_log}/replay/2", params={"seat": 0}, headers=wrong), 401, "unauthorized")


def test_the_page_and_its_files_carry_a_strict_policy(http: httpx.Client) -> None:
    for path in ("/", "/web/app.js", "/web/games/modern-world.js", "/web/boards/common.js", "/web/style.css"):
        answer = http.get(path)
        assert answer.status_code == 200, path
        policy = answer.headers["content-security-policy"]
        assert "script-src 'self'" in policy and "unsafe" not in policy, policy
        assert answer.headers["x-content-type-options"] == "nosniff"
    assert "text/javascript" in http.get("/web/app.js").headers["content-type"]
    refused(http.get("/web/nothing-here.js"), 404, "not_found")
    for asset in ("/web/../pyproject.toml", "/web/%2e%2e/__init__.py"):
        assert http.get(asset).status_code == 404


def test_flag_requests_have_their_own_rate(http: httpx.Client) -> None:
    """(Last in the module: it spends this address's flag requests.)"""
    burst = FLAG_RPS * FLAG_BURST_S
    answers = [http.post("/matches/no-such-match/bots", json={}) for _ in range(burst + 20)]
    limited = [a for a in answers if a.status_code == 429]
    assert limited, [a.status_code for a in answers]
    refused(limited[0], 429, "rate_limited")
    assert int(limited[0].headers["retry-after"]) >= 1
