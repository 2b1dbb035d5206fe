"""After a failover that lost the newest writes (the replica promoted had not got them), the worker's and the
projector's cached states are ahead of the log. Both notice and rebuild from the log: the next command is
decided on the state the log really holds, and the views follow the log as rewritten."""

from __future__ import annotations

import pytest

from services.pipeline.direct import DirectClient
from services.pipeline.projector import Projector
from services.pipeline.redis_backend import RedisBackend
from services.pipeline.worker import Worker

pytestmark = pytest.mark.redis


def test_worker_and_projector_rebuild_when_the_log_lost_its_tail(redis_backend: RedisBackend) -> None:
    r, keys = redis_backend.redis, redis_backend.settings.keys
    client = DirectClient(redis_backend)
    meta = client.create_match("tally", 1)
    match_id, cred = meta.match_id, client.join(meta.match_id, 0)[1]
    sent = [client.send(match_id, 0, cred, "add", {"n": n}) for n in (3, 4, 5)]
    worker = Worker(redis_backend.bus, redis_backend.store, "w", redis_backend.settings.worker())
    while worker.run_once(block_ms=10):
        pass
    projector = Projector(redis_backend.store, redis_backend.views, "p")
    projector.project(redis_backend.store.read_feed("p", 100, 100))
    assert client.view(match_id).view["total"] == 12  # type: ignore[union-attr]
    # the failover: the last command's append (log entry, version, seen record) and the views written after it
    # are gone, as they never reached the replica now serving the slot
    r.xdel(keys.log(match_id), "4-0")
    r.execute_command("XSETID", keys.log(match_id), "3-0")  # (the replica's stream never had entry 4)
    r.hset(keys.meta(match_id), "version", 3)
    r.hdel(keys.seen(match_id), sent[2])
    for key in ("public", "0"):
        r.delete(keys.view(match_id, key))
    client.send(match_id, 0, cred, "add", {"n": 7})
    while worker.run_once(block_ms=10):
        pass
    log = redis_backend.store.read_log(match_id)
    assert [e.version for e in log] == [1, 2, 3, 4] and log[-1].body == {"seat": 0, "n": 7}
    projector.project(redis_backend.store.read_feed("p", 100, 100))
    record = client.view(match_id)
    assert record is not None and record.version == 4 and record.view["total"] == 14
