"""The projector on Redis: views equal a replay of the log (also with several projectors sharing the
feed), a re-delivered event is not applied twice, and no view leaks a hidden card."""

from __future__ import annotations

import pytest

from schemas.envelopes import MatchMeta
from services.bots.base import RandomBot
from services.bots.runner import play_match
from services.games.base import replay
from services.games.rng import derive_rng
from services.pipeline.direct import DirectClient
from services.pipeline.projector import Projector
from services.pipeline.redis_backend import RedisBackend
from services.pipeline.redis_local import LocalServices
from services.pipeline.states import to_envelope, to_event
from services.pipeline.worker import Worker
from services.settings import Settings
from tests.pipeline.nim import NIM

pytestmark = pytest.mark.redis


def test_views_equal_a_replay_of_the_log_with_two_workers_and_two_projectors(redis_settings: Settings) -> None:
    services = LocalServices(redis_settings, workers=2, projectors=2).start()
    backend = RedisBackend(redis_settings)
    client = DirectClient(backend, poll_ms=50)
    try:
        reports = [play_match(client, "nim", 3, [RandomBot(seed + s) for s in range(3)], seed=seed, timeout_s=20)
                   for seed in range(4)]
    finally:
        services.stop()  # the fixture deletes the keys
    for report in reports:
        match_id = report.meta.match_id
        state = replay(NIM, [to_event(e) for e in backend.store.read_log(match_id)])
        for key, seat in [("public", None), ("0", 0), ("1", 1), ("2", 2)]:
            record = backend.views.get_view(match_id, key)
            assert record is not None and record.version == report.version
            assert record.view == NIM.view(state, seat)


def test_a_redelivered_event_is_not_applied_twice(redis_backend: RedisBackend) -> None:
    client = DirectClient(redis_backend)
    meta = client.create_match("tally", 1)
    cred = client.join(meta.match_id, 0)[1]
    for n in (3, 4, 5):
        client.send(meta.match_id, 0, cred, "add", {"n": n})
    worker = Worker(redis_backend.bus, redis_backend.store, "w", redis_backend.settings.worker())
    while worker.run_once(block_ms=10):
        pass
    deliveries = redis_backend.store.read_feed("p1", 100, 100)
    assert len(deliveries) == 4
    first = Projector(redis_backend.store, redis_backend.views, "p1")
    first.project(deliveries)
    first.project(deliveries)  # re-delivered to the same projector
    Projector(redis_backend.store, redis_backend.views, "p2").project(deliveries[1:3])  # and to a fresh one
    record = client.view(meta.match_id)
    assert record is not None and record.version == 4 and record.view["total"] == 12
    updates = redis_backend.views.read_updates(meta.match_id, "0", 10)
    # the join that filled the match announced its views at the set-up's version (claim_seat.lua); then the
    # projectors wrote version 4 once, however often its events came
    assert sorted((k, v) for _, k, v in updates) == [("0", 1), ("0", 4), ("public", 1), ("public", 4)]


def _nim_match(backend: RedisBackend, match_id: str, secret_of_seat_1: int) -> None:
    events = NIM.setup({}, 2, derive_rng(11, 0))
    envelopes = []
    for i, e in enumerate(events):
        if e.type == "SecretDealt" and e.body["seat"] == 1:
            e = type(e)(e.type, {**e.body, "secret": secret_of_seat_1}, e.visible_to, e.redacted)
        envelopes.append(to_envelope(match_id, i + 1, e))
    meta = MatchMeta(match_id=match_id, game="nim", seats=2, seed=11, status="running",
                     credential_hashes={0: "x", 1: "y"})
    assert backend.store.create_match(meta, envelopes)


def test_no_view_but_its_owners_changes_when_a_hidden_card_changes(redis_backend: RedisBackend) -> None:
    _nim_match(redis_backend, "one", secret_of_seat_1=17)
    _nim_match(redis_backend, "two", secret_of_seat_1=83)
    projector = Projector(redis_backend.store, redis_backend.views, "p")
    while projector.run_once(block_ms=10):
        pass

    def records(key: str) -> tuple[object, ...]:
        pair = [redis_backend.views.get_view(m, key) for m in ("one", "two")]
        assert pair[0] is not None and pair[1] is not None
        return tuple((r.version, r.view, r.legal) for r in pair if r is not None)

    public, seat0, seat1 = records("public"), records("0"), records("1")
    assert public[0] == public[1] and seat0[0] == seat0[1]
    assert seat1[0] != seat1[1]
    for view_of_public_or_seat0 in (public[0], seat0[0]):
        assert "83" not in repr(view_of_public_or_seat0) and "17" not in repr(view_of_public_or_seat0)
