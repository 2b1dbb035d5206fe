"""Events stored in an older shape are upgraded when a Redis log is read (and when the projector reads them)."""

from __future__ import annotations

import pytest

from schemas.codec import pack_obj
from schemas.envelopes import EVENT_SCHEMA_VERSION
from services.pipeline.lobby import create_match
from services.pipeline.redis_backend import FIELD, RedisBackend

pytestmark = pytest.mark.redis


def test_an_old_shape_event_in_a_redis_log_reads_as_the_current_shape(redis_backend: RedisBackend) -> None:
    meta = create_match(redis_backend.store, "nim", 2, seed=1, match_id="old1")
    version = redis_backend.store.version(meta.match_id)
    old = {"match_id": "old1", "version": version + 1, "type": "SecretDealt", "body": {"seat": 1, "secret": 5},
           "seats": [1], "redacted": {"seat": 1}}  # version 0: no schema_version, `seats` for `visible_to`
    redis_backend.redis.xadd(redis_backend.settings.keys.log("old1"), {FIELD: pack_obj(old)}, id=f"{version + 1}-0")
    (event,) = redis_backend.store.read_log("old1", after=version)
    assert event.schema_version == EVENT_SCHEMA_VERSION
    assert event.visible_to == [1] and event.body == {"seat": 1, "secret": 5}
