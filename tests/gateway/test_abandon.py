"""Ending a match by the players' agreement goes through the pipeline: the gateway publishes the system command
``match.abandon``, a worker decides it, and its ``MatchAbandoned`` event is in the log, the views (finished,
abandoned, nobody to act, nothing legal), the lobby and, once the archiver took the match, the archive: every
place a match's end shows. Clients cannot send the system command themselves."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from services.archive.archiver import Archiver
from services.archive.files import archive_path, read_archive
from services.pipeline.redis_backend import connect
from services.replay.verify import verify
from tests.gateway.nim_http import get_json
from tests.gateway.stack import GatewayStack, archiving_stack

pytestmark = pytest.mark.redis


@pytest.fixture(scope="module")
def archive_stack(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayStack]:
    with archiving_stack(redis_url, tmp_path_factory.mktemp("archive"), "gwab") as stack:
        yield stack


def new_match(http: httpx.Client, game: str = "moderne-zeiten", seats: int = 3) -> tuple[str, dict[int, str]]:
    created = http.post("/matches", json={"game": game, "seats": seats})
    assert created.status_code == 201, created.text
    match_id = created.json()["match_id"]
    tokens = {}
    for _ in range(seats):
        joined = http.post(f"/matches/{match_id}/seats", json={}).json()
        tokens[joined["seat"]] = joined["token"]
    return match_id, tokens


def vote(http: httpx.Client, match_id: str, token: str) -> dict[str, Any]:
    answer = http.post(f"/matches/{match_id}/abandon", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 200, answer.text
    return answer.json()  # type: ignore[no-any-return]


def send(http: httpx.Client, match_id: str, token: str, key: str, type_: str, body: dict[str, Any]) -> httpx.Response:
    return http.post(f"/matches/{match_id}/commands", params={"wait_s": 10},
                     headers={"Authorization": f"Bearer {token}"},
                     json={"idempotency_key": key, "type": type_, "body": body})


def test_an_abandoned_match_is_finished_in_log_views_lobby_and_archive(archive_stack: GatewayStack) -> None:
    s = archive_stack.settings
    with httpx.Client(base_url=archive_stack.url, timeout=30.0) as http:
        match_id, tokens = new_match(http)
        public = get_json(http, f"/matches/{match_id}/views/public", after_version=0, wait_s=10)
        version = public["version"]
        first = vote(http, match_id, tokens[0])
        assert not first["abandoned"] and first["votes"] == [0] and first["waiting_for"] == [1, 2]
        assert not vote(http, match_id, tokens[2])["abandoned"]
        last = vote(http, match_id, tokens[1])
        assert last["abandoned"] and last["votes"] == [0, 1, 2] and last["waiting_for"] == []

        summary = get_json(http, f"/matches/{match_id}")
        assert summary["status"] == "finished" and summary["abandoned"] and summary["version"] == version + 1
        log = get_json(http, f"/matches/{match_id}/log")["events"]
        assert log[-1]["type"] == "MatchAbandoned" and log[-1]["version"] == version + 1
        assert log[-1]["body"] == {"votes": [0, 1, 2], "rule": "all"}
        for key in ("public", *map(str, range(3))):
            token = tokens[int(key)] if key != "public" else None
            path = f"/matches/{match_id}/views/" + ("public" if token is None else "me")
            view = get_json(http, path, token, after_version=version, wait_s=10)
            assert view["version"] == version + 1 and view["finished"] and view["abandoned"], view
            assert view["to_act"] == [] and view["legal"] == [] and view["view"]["finished"]
            assert view["outcome"] == {"scores": [0, 0, 0], "winners": [],
                                       "detail": {"abandoned": True, "rule": "all"}}  # the rule: from the event
        refused = send(http, match_id, tokens[0], "late", "pass", {}).json()
        assert refused["status"] == "rejected" and refused["code"] == "game_over"
        assert vote(http, match_id, tokens[0])["abandoned"]  # asking again changes nothing
        assert get_json(http, f"/matches/{match_id}")["version"] == version + 1
        assert any(m["match_id"] == match_id and m["abandoned"]
                   for m in get_json(http, "/matches", status="finished", limit=200)["matches"])

        r = connect(s.redis_url)
        try:
            report = Archiver(r, s).run_once()
            assert match_id in report.archived and not report.errors
            assert not r.exists(s.keys.meta(match_id))
        finally:
            r.close()
        archived = read_archive(archive_path(Path(s.archive_dir), match_id, s.partitions))
        assert archived is not None and archived.events[-1].type == "MatchAbandoned"
        checked = verify(archived)  # the archive replays: the abandon decided again gives the same event
        assert checked.mismatch is None and checked.commands_decided >= 1, checked
        summary = get_json(http, f"/matches/{match_id}")  # from the archive header and log now
        assert summary["status"] == "finished" and summary["abandoned"]


def test_a_move_after_the_votes_voids_them(archive_stack: GatewayStack) -> None:
    with httpx.Client(base_url=archive_stack.url, timeout=30.0) as http:
        match_id, tokens = new_match(http, "mad-zeppelin", 3)
        assert not vote(http, match_id, tokens[0])["abandoned"]
        assert not vote(http, match_id, tokens[1])["abandoned"]
        public = get_json(http, f"/matches/{match_id}/views/public", after_version=0, wait_s=10)
        seat = public["to_act"][0]
        mine = get_json(http, f"/matches/{match_id}/views/me", tokens[seat], after_version=public["version"] - 1,
                        wait_s=10)
        choice = mine["legal"][0]
        moved = send(http, match_id, tokens[seat], "m1", choice["type"], choice.get("body", {})).json()
        assert moved["status"] == "accepted", moved
        answer = vote(http, match_id, tokens[2])
        assert not answer["abandoned"] and answer["votes"] == [2] and answer["waiting_for"] == [0, 1]
        assert get_json(http, f"/matches/{match_id}")["status"] == "running"


@pytest.mark.parametrize("type_", ["match.abandon", "MatchAbandoned!", "a b", ""])
def test_a_client_cannot_send_the_system_command(archive_stack: GatewayStack, type_: str) -> None:
    with httpx.Client(base_url=archive_stack.url, timeout=30.0) as http:
        match_id, tokens = new_match(http)
        answer = send(http, match_id, tokens[0], "sys", type_, {"votes": [0, 1, 2], "rule": "all"})
        assert answer.status_code == 400 and answer.json()["field"] == "body.type", answer.text
        assert get_json(http, f"/matches/{match_id}")["status"] == "running"


def test_seats_given_to_the_bots_agree_to_end_the_match(archive_stack: GatewayStack) -> None:
    """A player alone with the service's bots ends the match by his own vote (#33): bots never keep people in a
    match. Without the flags the same vote waits for the others."""
    with httpx.Client(base_url=archive_stack.url, timeout=30.0) as http:
        created = http.post("/matches", json={"game": "moderne-zeiten", "seats": 3})
        match_id = created.json()["match_id"]
        mine = http.post(f"/matches/{match_id}/seats", json={"seat": 0}).json()["token"]
        flagged = http.post(f"/matches/{match_id}/bots", json={"bot": "random"},
                            headers={"Authorization": f"Bearer {mine}"})
        assert flagged.status_code == 201, flagged.text
        for seat in (1, 2):  # the bots process sits down (as any client does)
            assert http.post(f"/matches/{match_id}/seats", json={"seat": seat}).status_code == 201
        get_json(http, f"/matches/{match_id}/views/public", after_version=1, wait_s=10)
        answer = vote(http, match_id, mine)
        assert answer["abandoned"] and answer["votes"] == [0] and answer["waiting_for"] == []
        log = get_json(http, f"/matches/{match_id}/log")["events"]
        assert log[-1]["type"] == "MatchAbandoned" and log[-1]["body"] == {"votes": [0, 1, 2], "rule": "all"}
        alone, tokens = new_match(http)
        assert not vote(http, alone, tokens[0])["abandoned"], "without bots the others must agree"
