"""The archiver removes open matches nobody filled as its own Redis user (infra/redis/users.acl): Redis refuses
none of its commands (nor the worker's, which decides its purges), and it can touch no match that began."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import pytest
import redis

from services.archive.archiver import Archiver
from services.keys import Keys
from services.pipeline.lobby import create_match, join
from services.pipeline.redis_backend import RedisStore
from services.settings import Settings
from tests.ops.test_acl import Server, passwords, server
from tests.pipeline import nim  # noqa: F401  (registers nim)
from tests.pipeline.redis_fixtures import spawn, stop

__all__ = ["server"]

pytestmark = pytest.mark.redis


def test_the_archiver_expires_open_matches_as_its_own_user(server: Server, tmp_path: Path) -> None:
    keys = Keys(partitions=4)
    settings = Settings(key_prefix=keys.prefix, partitions=keys.partitions, open_ttl_s=60.0)
    with redis.Redis(port=server.port, username="admin", password=passwords()["admin"]) as raw:
        store = RedisStore(raw, keys, settings)
        stale = create_match(store, "nim", 2, None, 5, f"exp-{uuid.uuid4().hex[:12]}").match_id
        began = create_match(store, "nim", 2, None, 6, f"exp-{uuid.uuid4().hex[:12]}").match_id
        for seat in range(2):
            join(store, began, seat)
        long_ago = int((time.time() - 3600) * 1000)
        raw.zadd(keys.match_matches(stale, "open"), {stale: long_ago})
        raw.zadd(keys.match_matches(began, "open"), {began: long_ago})  # a stale entry of a match that began
        server.admin.execute_command("ACL", "LOG", "RESET")
        # the keys go by the archiver's match.purge, decided by a worker logged in as `worker` (same TTL)
        worker = spawn(settings.with_(redis_url=server.url("worker"), block_ms=50, claim_every_s=0.5), "worker",
                       AIRSHIP_HEALTH_PORT="0", AIRSHIP_METRICS_PORT="0", AIRSHIP_OPEN_TTL_S="60")
        try:
            with redis.Redis(port=server.port, username="archiver", password=passwords()["archiver"]) as client:
                report = Archiver(client, settings, tmp_path).run_once()
        finally:
            stop(worker)
        refused = [(e["username"], e["object"]) for e in server.admin.execute_command("ACL", "LOG")]
        assert not refused, f"Redis refused the archiver: {refused}"
        assert stale in report.expired and began not in report.expired
        assert not list(raw.scan_iter(match=f"{keys.tag(keys.partition(stale))}:match:{stale}:*"))
        assert raw.hget(keys.meta(began), "status") == b"running"
        for match_id in (stale, began):
            assert raw.zscore(keys.match_matches(match_id, "open"), match_id) is None
        for key in raw.scan_iter(match=f"{keys.tag(keys.partition(began))}:match:{began}:*"):
            raw.unlink(key)
        raw.zrem(keys.match_matches(began, "running"), began)
