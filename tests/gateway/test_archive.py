"""The gateway serves archived matches: once the archiver has moved a finished match to
``<archive_dir>/<partition>/<id>.jsonl.gz`` and its keys left Redis, ``GET /matches/{id}`` answers its
summary from the archive header and ``GET /matches/{id}/log`` its log, with the same perspective rules
(the whole log if ``reveal_log``, else the public one: seat tokens cannot be checked any more). The seed
is never served."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from services.archive.archiver import Archiver
from services.archive.files import archive_path
from services.gateway.launch import wait_ready
from services.pipeline.redis_backend import connect, delete_prefix
from services.settings import Settings
from tests.gateway.stack import GatewayStack, free_port, spawn_gateway
from tests.pipeline.redis_fixtures import spawn, stop

pytestmark = pytest.mark.redis


@pytest.fixture(scope="module")
def archive_stack(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayStack]:
    """The gateway_stack of tests/gateway/stack.py, with the gateway reading an archive directory."""
    archive = tmp_path_factory.mktemp("archive")
    settings = Settings(redis_url=redis_url, key_prefix=f"airship-gwa-{uuid.uuid4().hex[:8]}", partitions=4,
                        block_ms=50, claim_every_s=0.5, archive_dir=str(archive), archive_grace_s=0.0)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    stack = GatewayStack(settings, url)
    stack.procs = [spawn(settings, "worker"), spawn(settings, "projector"),
                   spawn_gateway(settings, port, AIRSHIP_ARCHIVE_DIR=str(archive))]
    try:
        wait_ready(url, stack.procs[-1])
        yield stack
    finally:
        for proc in stack.procs:
            stop(proc)
        delete_prefix(connect(redis_url), settings.key_prefix)


def _get(http: httpx.Client, path: str, token: str | None = None, **params: Any) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    answer = http.get(path, params=params, headers=headers)
    assert answer.status_code == 200, f"GET {path}: {answer.status_code} {answer.text}"
    return answer.json()


def play_nim(http: httpx.Client, reveal_log: bool) -> tuple[str, dict[int, str]]:
    created = http.post("/matches", json={"game": "nim", "seats": 2, "reveal_log": reveal_log})
    assert created.status_code == 201, created.text
    match_id, version = created.json()["match_id"], created.json()["version"]
    tokens = {}
    for _ in range(2):
        joined = http.post(f"/matches/{match_id}/seats", json={})
        assert joined.status_code == 201, joined.text
        tokens[joined.json()["seat"]] = joined.json()["token"]
    assert _get(http, f"/matches/{match_id}")["status"] == "running"
    for moves in range(100):
        public = _get(http, f"/matches/{match_id}/views/public", after_version=version - 1, wait_s=10)["view"]
        if public["finished"]:
            return match_id, tokens
        seat = public["to_act"][0]
        mine = _get(http, f"/matches/{match_id}/views/me", tokens[seat], after_version=version - 1, wait_s=10)
        command = mine["legal"][0]
        sent = http.post(f"/matches/{match_id}/commands", params={"wait_s": 10},
                         headers={"Authorization": f"Bearer {tokens[seat]}"},
                         json={"idempotency_key": f"move-{moves}", "type": command["type"],
                               "body": command["body"], "expected_version": mine["version"]})
        assert sent.status_code == 200 and sent.json()["status"] == "accepted", sent.text
        version = sent.json()["version"]
    raise AssertionError("nim did not end in 100 moves")


def test_an_archived_match_is_served_from_its_archive(archive_stack: GatewayStack) -> None:
    s = archive_stack.settings
    with httpx.Client(base_url=archive_stack.url, timeout=30.0) as http:
        revealed, _ = play_nim(http, reveal_log=True)
        hidden, tokens = play_nim(http, reveal_log=False)
        running = http.post("/matches", json={"game": "nim", "seats": 2}).json()["match_id"]
        before = {mid: (_get(http, f"/matches/{mid}"), _get(http, f"/matches/{mid}/log")) for mid in (revealed, hidden)}
        seat_log = _get(http, f"/matches/{hidden}/log", tokens[0])
        assert before[revealed][1]["perspective"] == "full" and before[hidden][1]["perspective"] == "public"
        assert seat_log["perspective"] == "seat:0"

        r = connect(s.redis_url)
        try:
            report = Archiver(r, s).run_once()
            assert sorted(report.archived) == sorted([revealed, hidden]) and not report.errors
            assert not r.exists(s.keys.meta(revealed), s.keys.meta(hidden), s.keys.log(hidden))
            assert r.exists(s.keys.meta(running))
        finally:
            r.close()
        for mid in (revealed, hidden):
            assert archive_path(Path(s.archive_dir), mid, s.partitions).is_file()

        for mid in (revealed, hidden):
            summary, log = before[mid]
            assert _get(http, f"/matches/{mid}") == summary  # status finished, same version, from the header
            assert _get(http, f"/matches/{mid}/log") == log
            assert _get(http, f"/matches/{mid}/log", after_version=2)["events"] == log["events"][2:]
        # with a seat token: the meta (and the token hashes) are gone, so no seat perspective any more
        assert _get(http, f"/matches/{hidden}/log", tokens[0]) == before[hidden][1]
        assert _get(http, f"/matches/{revealed}/log", "0.not-a-real-token")["perspective"] == "full"
        for mid in (revealed, hidden):
            text = http.get(f"/matches/{mid}/log").text + http.get(f"/matches/{mid}").text
            assert '"seed"' not in text
        # playing on is refused: nobody holds a seat of an archived match
        refused = http.post(f"/matches/{hidden}/commands", headers={"Authorization": f"Bearer {tokens[0]}"},
                            json={"idempotency_key": "late", "type": "take", "body": {"n": 1}})
        assert refused.status_code == 401
        assert http.get("/matches/0123456789abcdef/log").status_code == 404
        assert http.get("/matches/..%2F..%2Fetc/log").status_code in (400, 404)
