"""What a match keeps in Redis, kept small: compressed view records (old plain ones still read), one view
announcement per version naming every view written at it, results stored without the id the reader knows."""

from __future__ import annotations

import pytest

from schemas.codec import pack, pack_view, result_entry, unpack_view
from schemas.envelopes import CommandResult, ViewRecord
from services.pipeline.lobby import create_match
from services.pipeline.redis_backend import RedisBackend

pytestmark = pytest.mark.redis


def record(match_id: str, key: str, version: int) -> ViewRecord:
    view = {"hand": [{"card": f"card-{i}", "value": i} for i in range(40)], "seat": key}
    return ViewRecord(match_id=match_id, key=key, version=version, view=view, to_act=[0])


def test_view_records_are_compressed_and_plain_ones_still_read(redis_backend: RedisBackend) -> None:
    meta = create_match(redis_backend.store, "nim", 2, seed=1, match_id="v1")
    one = record(meta.match_id, "0", 5)
    assert len(pack_view(one)) < len(pack(one)) / 2 and unpack_view(pack_view(one)) == one
    redis_backend.views.put_views(meta.match_id, [one])
    assert redis_backend.views.get_view(meta.match_id, "0") == one
    plain = record(meta.match_id, "1", 5)  # as stored before compression
    redis_backend.redis.hset(redis_backend.settings.keys.view(meta.match_id, "1"), mapping={"v": 5, "d": pack(plain)})
    assert redis_backend.views.get_view(meta.match_id, "1") == plain


def test_one_announcement_per_version_names_every_view_written(redis_backend: RedisBackend) -> None:
    meta = create_match(redis_backend.store, "nim", 2, seed=1, match_id="u1")
    views = redis_backend.views
    start = views.updates_end(meta.match_id)
    views.put_views(meta.match_id, [record("u1", k, 7) for k in ("public", "0", "1")])
    views.put_views(meta.match_id, [record("u1", "0", 7), record("u1", "1", 8)])  # "0" at 7 is not newer
    entries = redis_backend.redis.xrange(redis_backend.settings.keys.updates("u1"), min=f"({start}")
    assert [fields for _, fields in entries] == [{b"k": b"public,0,1", b"v": b"7"}, {b"k": b"1", b"v": b"8"}]
    assert [(k, v) for _, k, v in views.read_updates("u1", start, 0)] == [("public", 7), ("0", 7), ("1", 7),
                                                                          ("1", 8)]


def test_results_keep_their_id_once(redis_backend: RedisBackend) -> None:
    meta = create_match(redis_backend.store, "nim", 2, seed=1, match_id="r1")
    store = redis_backend.store
    version = store.version(meta.match_id)
    result = CommandResult(command_id="0.k1", match_id="r1", seat=0, status="rejected", version=version,
                           code="illegal", reason="not your turn")
    store.append("r1", version, [], result)
    keys = redis_backend.settings.keys
    assert b"0.k1" not in redis_backend.redis.hget(keys.seen("r1"), "0.k1")  # type: ignore[operator]
    (_, fields), = redis_backend.redis.xrange(keys.results("r1"))
    assert fields[b"c"] == b"0.k1" and b"0.k1" not in fields[b"r"] and result_entry(fields, "r1") == result
    assert store.result("r1", "0.k1") == result and store.read_results("r1", "0", 0)[0][1] == result
