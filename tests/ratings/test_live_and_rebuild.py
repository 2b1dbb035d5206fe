"""The ratings read model live and rebuilt: matches played through the gateway with real worker, projector and
ratings projector processes, killed (SIGKILL) and restarted mid-way; some matches archived. The ladder the live
projector ends with equals, exactly, the one ``airship ratings rebuild`` computes from Redis and the archive
(and from the archive alone, its files' headers carrying the seat -> player links, once Redis forgot them);
a strong bot ends above random ones; a match is rated once however often its events are delivered."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest
import redis
from fastapi.testclient import TestClient

from services.archive.archiver import Archiver
from services.archive.files import archive_path, read_archive
from services.keys import RATINGS_GROUP
from services.ratings.projector import RatingsModel, ratings_projector
from services.ratings.rebuild import rebuild
from services.ratings.store import RatingsStore
from services.settings import Settings
from tests.pipeline.redis_fixtures import spawn, stop, wait_until
from tests.ratings.conftest import join, play_nim, rated_match, register, spawn_ratings

pytestmark = [pytest.mark.redis, pytest.mark.slow]
MATCHES = 8


def play(gateway: TestClient, keys: dict[str, str], rng: random.Random, seats: int = 2) -> str:
    """A rated nim match: the strong bot against random ones (``seats`` players in a random seat order)."""
    players = ["strong", *rng.sample([k for k in sorted(keys) if k != "strong"], seats - 1)]
    rng.shuffle(players)
    match_id = rated_match(gateway, "nim", players, keys[players[0]])
    tokens = {}
    for seat, name in enumerate(players):
        answer = join(gateway, match_id, seat, keys[name])
        assert answer.status_code == 201, answer.text
        tokens[seat] = answer.json()["token"]
    play_nim(gateway, match_id, tokens, {players.index("strong")} if "strong" in players else set(), rng)
    return match_id


def test_rebuild_equals_live_after_kills(gateway: TestClient, r: redis.Redis, settings: Settings,
                                         procs: list[subprocess.Popen[bytes]], tmp_path: Path) -> None:
    rng = random.Random(18)
    keys = {name: register(gateway, name) for name in ("strong", "rand1", "rand2")}
    procs += [spawn(settings, "worker"), spawn(settings, "projector"), spawn_ratings(settings)]
    anonymous = gateway.post("/matches", json={"game": "nim", "seats": 2}).json()["match_id"]
    tokens = {s: join(gateway, anonymous, s).json()["token"] for s in (0, 1)}
    play_nim(gateway, anonymous, tokens, set(), rng)  # anonymous: never rated
    played = [play(gateway, keys, rng) for _ in range(MATCHES // 2)]
    for proc in procs:  # killed mid-way, nothing stopped cleanly
        proc.kill()
        proc.wait()
    procs += [spawn(settings, "worker"), spawn(settings, "projector"), spawn_ratings(settings)]
    played += [play(gateway, keys, rng, 3 if i == 0 else 2) for i in range(MATCHES - MATCHES // 2)]
    store = RatingsStore(r, settings.keys)
    wait_until(lambda: len(store.matches("nim")) == MATCHES and len(store.standings("nim")) == 3, timeout_s=30)
    wait_until(lambda: sum(row["games"] for row in store.standings("nim")) == sum(
        len(m.placings) for m in store.matches("nim")), timeout_s=10)
    for proc in procs[4:]:  # the restarted ones stop cleanly on SIGTERM (the worker: after the archiver's purges)
        assert stop(proc) == 0
    live = store.snapshot()
    assert sorted(m["m"] for m in live["nim"]["matches"]) == sorted(played)
    assert live["nim"]["standings"][0]["player"] == "strong"

    archiver = Archiver(r, settings.with_(archive_grace_s=0), root=tmp_path)
    archived = archiver.run_once().archived
    assert set(played) <= set(archived)  # they left Redis: the rebuild reads them from the archive
    assert stop(procs[3]) == 0
    report = rebuild(r, settings.keys, tmp_path)
    assert (report.from_redis, report.from_archive) == (0, MATCHES)
    assert store.snapshot() == live
    assert rebuild(r, settings.keys, tmp_path).games == {"nim": MATCHES}  # again: the same
    assert store.snapshot() == live

    # the links travel in the archive files' headers: with Redis's seat-players hashes gone, the same ladder
    for match_id in played:
        header = read_archive(archive_path(tmp_path, match_id, settings.partitions))
        assert header is not None and header.meta is not None and len(set(header.players.values())) >= 2
        assert header.meta.created_ms and header.meta.created_ms > 0
    r.delete(*(settings.keys.seat_players(p) for p in range(settings.partitions)))
    report = rebuild(r, settings.keys, tmp_path)
    assert (report.from_redis, report.from_archive) == (0, MATCHES)
    assert store.snapshot() == live


def test_rated_exactly_once_under_redelivery(gateway: TestClient, r: redis.Redis, settings: Settings,
                                             procs: list[subprocess.Popen[bytes]]) -> None:
    rng = random.Random(7)
    keys = {name: register(gateway, name) for name in ("strong", "rand1")}
    procs += [spawn(settings, "worker"), spawn(settings, "projector")]
    match_id = play(gateway, keys, rng)
    projector = ratings_projector(r, settings.keys, "one", block_ms=10, claim_idle_ms=0, sweep_every_s=0)
    model = projector.model
    assert isinstance(model, RatingsModel)
    store = RatingsStore(r, settings.keys)
    projector.run_once(block_ms=10)  # reads the feed but is "killed" before acknowledging:
    r.delete(settings.keys.ratings("nim:standings"))
    pending = sum(r.xpending(settings.keys.feed(p), RATINGS_GROUP)["pending"] for p in range(settings.partitions))
    assert pending == 0  # (it acknowledged; now deliver everything again, as claims after a crash would)
    for p in range(settings.partitions):
        r.xgroup_setid(settings.keys.feed(p), RATINGS_GROUP, "0")
    assert projector.run_once(block_ms=10) > 0
    model.rate([match_id] * 3)
    model.sweep()
    model.sweep()
    assert [m.match_id for m in store.matches("nim")] == [match_id]
    assert [row["games"] for row in store.standings("nim")] == [1, 1]
    assert len(store.history("nim", "strong")) == 1
    (rated,) = store.matches("nim")  # the winner of the one match is first (nim piles are random: either wins)
    winner = next(p.player for p in rated.placings if p.rank == 0)
    assert store.standings("nim")[0]["player"] == winner
