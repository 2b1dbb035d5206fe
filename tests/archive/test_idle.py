"""Running matches nobody moves in are ended by the archiver (``AIRSHIP_IDLE_MATCH_S``): the system command
``match.abandon`` with rule ``expired``, decided by a worker at the version the archiver saw; a match that moved
meanwhile is not ended; the ended match is then archived like any finished one, its log carrying the reason."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from services.archive.archiver import Archiver
from services.archive.files import archive_path
from services.archive.idle import IdleExpiry, expiry_id
from services.pipeline.direct import DirectClient
from services.pipeline.redis_backend import RedisBackend
from services.pipeline.redis_local import LocalServices
from services.replay.files import read_match
from services.settings import Settings

pytestmark = pytest.mark.redis


@pytest.fixture
def live(redis_settings: Settings) -> Iterator[tuple[RedisBackend, DirectClient]]:
    services = LocalServices(redis_settings).start()
    backend = RedisBackend(redis_settings)
    try:
        yield backend, DirectClient(backend, poll_ms=20)
    finally:
        services.stop()
        backend.close()


def running_match(client: DirectClient, seed: int) -> tuple[str, dict[int, str]]:
    match_id = client.create_match("nim", 2, seed=seed).match_id
    return match_id, dict(client.join(match_id, seat) for seat in range(2))


def first_move(client: DirectClient, match_id: str, tokens: dict[int, str]) -> None:
    """Whoever is to act takes 1."""
    record = client.wait_view(match_id, "public", 1)
    seat = record.to_act[0]
    assert client.call(match_id, seat, tokens[seat], "take", {"n": 1}).status == "accepted"


def wait_finished(backend: RedisBackend, match_id: str, timeout_s: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        meta = backend.store.meta(match_id)
        if meta is not None and meta.status == "finished":
            return True
        time.sleep(0.02)
    return False


def test_an_idle_running_match_is_ended_with_its_reason_and_archived(live: tuple[RedisBackend, DirectClient],
                                                                     tmp_path: Path) -> None:
    backend, client = live
    idle, _ = running_match(client, 1)
    busy, tokens = running_match(client, 2)
    k = backend.settings.keys
    assert backend.redis.hget(k.meta(idle), "moved")  # written by the join that started it
    time.sleep(1.2)
    first_move(client, busy, tokens)  # busy moves: it is not idle
    settings = backend.settings.with_(idle_match_s=1.0, archive_grace_s=0.0)
    archiver = Archiver(backend.redis, settings, tmp_path)

    report = archiver.run_once()
    assert report.ended_idle == [idle], report
    assert wait_finished(backend, idle)
    assert backend.store.meta(busy).status == "running"  # type: ignore[union-attr]
    events = backend.store.read_log(idle)
    assert events[-1].type == "MatchAbandoned" and events[-1].body == {"votes": [], "rule": "expired"}
    assert events[-1].command_id == expiry_id(events[-1].version - 1)
    public = client.wait_view(idle, "public", events[-1].version)
    assert public.finished and public.outcome is not None and public.outcome["detail"] == {
        "abandoned": True, "rule": "expired"}

    report = archiver.run_once()  # the next pass archives it like any finished match
    assert idle in report.archived and not report.errors
    archived = read_match(archive_path(tmp_path, idle, settings.partitions))
    assert archived.events[-1].body == {"votes": [], "rule": "expired"}
    assert not backend.redis.exists(k.meta(idle))


def test_a_move_made_after_the_archiver_looked_makes_the_expiry_stale(live: tuple[RedisBackend, DirectClient]) -> None:
    backend, client = live
    match_id, tokens = running_match(client, 3)
    k = backend.settings.keys
    version = backend.store.version(match_id)
    expiry = IdleExpiry(backend.redis, k, 1.0)
    # the archiver saw the match idle at `version`, then a seat moved before a worker took the expiry
    first_move(client, match_id, tokens)
    assert expiry._publish(k.partition(match_id), match_id, version)
    result = client.wait_result(match_id, expiry_id(version), 10.0)
    assert result.status == "rejected" and result.code == "conflict", result
    assert backend.store.meta(match_id).status == "running"  # type: ignore[union-attr]
    assert expiry.run(k.partition(match_id), time.time() * 1000) == []  # it just moved: not idle
