"""#32: no ReadWriteMany volume for the archive. The archiver serves its archive read-only over HTTP
(``AIRSHIP_ARCHIVE_PORT``, services/archive/serve.py) and a gateway with ``AIRSHIP_ARCHIVE_URL`` (and no archive
directory of its own, as on Kubernetes) serves archived matches from it; an archiver that does not answer is a
503, not a 404."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from services.archive.archiver import Archiver
from services.archive.serve import ArchiveUnavailable, fetch_archive, serve_archive
from services.pipeline.redis_backend import connect
from tests.gateway import nim_http
from tests.gateway.nim_http import get_json
from tests.gateway.stack import free_port, running_stack, stack_settings
from tests.pipeline.redis_fixtures import redis_url

__all__ = ["redis_url"]


def test_an_archiver_that_does_not_answer_is_unavailable_not_missing() -> None:
    with pytest.raises(ArchiveUnavailable):
        fetch_archive(f"http://127.0.0.1:{free_port()}", "0123456789abcdef", timeout_s=2)


@pytest.mark.redis
def test_a_gateway_without_the_volume_serves_archived_matches_from_the_archiver(redis_url: str,
                                                                                 tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    settings = stack_settings(redis_url, "gwah", archive_dir=str(archive), archive_grace_s=0.0)
    port = free_port()
    server = serve_archive(archive, settings.partitions, port, host="127.0.0.1")
    url = f"http://127.0.0.1:{port}"
    try:
        with running_stack(settings, AIRSHIP_ARCHIVE_URL=url, AIRSHIP_ARCHIVE_DIR="") as stack, \
                httpx.Client(base_url=stack.url, timeout=30.0) as http:
            played, _, _ = nim_http.play_nim(http, reveal_log=True)
            other, _, _ = nim_http.play_nim(http, reveal_log=True)
            before = (get_json(http, f"/matches/{played}"), get_json(http, f"/matches/{played}/log"))
            r = connect(settings.redis_url)
            try:
                report = Archiver(r, settings).run_once()
                assert sorted(report.archived) == sorted([played, other]) and not report.errors
                assert not r.exists(settings.keys.meta(played))
            finally:
                r.close()
            assert fetch_archive(url, played) is not None
            assert fetch_archive(url, "0123456789abcdef") is None
            assert fetch_archive(url, "../../etc/passwd") is None
            assert (get_json(http, f"/matches/{played}"), get_json(http, f"/matches/{played}/log")) == before
            assert http.get("/matches/0123456789abcdef/log").status_code == 404
            server.shutdown()
            server.server_close()
            down = http.get(f"/matches/{other}/log")  # not cached by the gateway yet
            assert down.status_code == 503 and down.json()["code"] == "unavailable", down.text
    finally:
        server.shutdown()
        server.server_close()
