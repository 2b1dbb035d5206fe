"""The gateway serves archived matches: once the archiver has moved a finished match to
``<archive_dir>/<partition>/<id>.jsonl.gz`` and its keys left Redis, ``GET /matches/{id}`` answers its
summary from the archive header and ``GET /matches/{id}/log`` its log, with the same perspective rules
(the whole log if ``reveal_log``, else the public one: seat tokens cannot be checked any more). The seed
is never served."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from services.archive.archiver import Archiver
from services.archive.files import archive_path
from services.pipeline.redis_backend import connect
from tests.gateway import nim_http
from tests.gateway.nim_http import get_json
from tests.gateway.stack import GatewayStack, archiving_stack

pytestmark = pytest.mark.redis


@pytest.fixture(scope="module")
def archive_stack(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayStack]:
    """The gateway_stack of tests/gateway/stack.py, with the gateway reading an archive directory."""
    with archiving_stack(redis_url, tmp_path_factory.mktemp("archive"), "gwa") as stack:
        yield stack


def play_nim(http: httpx.Client, reveal_log: bool) -> tuple[str, dict[int, str]]:
    match_id, tokens, _ = nim_http.play_nim(http, reveal_log)
    return match_id, tokens


def test_an_archived_match_is_served_from_its_archive(archive_stack: GatewayStack) -> None:
    s = archive_stack.settings
    with httpx.Client(base_url=archive_stack.url, timeout=30.0) as http:
        revealed, _ = play_nim(http, reveal_log=True)
        hidden, tokens = play_nim(http, reveal_log=False)
        running = http.post("/matches", json={"game": "nim", "seats": 2}).json()["match_id"]
        before = {mid: (get_json(http, f"/matches/{mid}"), get_json(http, f"/matches/{mid}/log"))
                  for mid in (revealed, hidden)}
        seat_log = get_json(http, f"/matches/{hidden}/log", tokens[0])
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
            assert get_json(http, f"/matches/{mid}") == summary  # status finished, same version, from the header
            assert get_json(http, f"/matches/{mid}/log") == log
            assert get_json(http, f"/matches/{mid}/log", after_version=2)["events"] == log["events"][2:]
        # with a seat token: the meta (and the token hashes) are gone, so no seat perspective any more
        assert get_json(http, f"/matches/{hidden}/log", tokens[0]) == before[hidden][1]
        assert get_json(http, f"/matches/{revealed}/log", "0.not-a-real-token")["perspective"] == "full"
        for mid in (revealed, hidden):
            text = http.get(f"/matches/{mid}/log").text + http.get(f"/matches/{mid}").text
            assert '"seed"' not in text
        # playing on is refused: nobody holds a seat of an archived match
        refused = http.post(f"/matches/{hidden}/commands", headers={"Authorization": f"Bearer {tokens[0]}"},
                            json={"idempotency_key": "late", "type": "take", "body": {"n": 1}})
        assert refused.status_code == 401
        assert http.get("/matches/0123456789abcdef/log").status_code == 404
        assert http.get("/matches/..%2F..%2Fetc/log").status_code in (400, 404)
