"""The archiver on a real Redis: finished matches go to ``<dir>/<partition>/<id>.jsonl.gz`` and leave Redis,
running ones stay; a crash between the file and the deletion loses and duplicates nothing."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from services.archive.archiver import ArchiveError, Archiver, pending_key
from services.archive.files import archive_path
from services.bots.base import RandomBot
from services.bots.runner import play_match
from services.faults import EXIT_CODE
from services.pipeline.direct import DirectClient
from services.pipeline.redis_backend import RedisBackend
from services.pipeline.redis_local import LocalServices
from services.replay.files import read_match
from services.replay.transfer import load_match
from services.settings import Settings
from tests.pipeline.redis_fixtures import GAME_MODULES, ROOT

pytestmark = pytest.mark.redis


@pytest.fixture
def played(redis_settings: Settings) -> Iterator[tuple[RedisBackend, list[str], str]]:
    """Three finished nim matches and one running one (created, joined, no move yet)."""
    services = LocalServices(redis_settings).start()
    backend = RedisBackend(redis_settings)
    client = DirectClient(backend, poll_ms=20)
    try:
        finished = [play_match(client, "nim", 2, [RandomBot(seed=i), RandomBot(seed=i + 10)], seed=i).meta.match_id
                    for i in range(3)]
        running = client.create_match("nim", 2, seed=99)
        for seat in range(2):
            client.join(running.match_id, seat)
        version = backend.store.version(running.match_id)
        for key in ("public", 0, 1):  # the projector writes the views after the join: wait, or a key appears later
            client.wait_view(running.match_id, key, version)
        yield backend, finished, running.match_id
    finally:
        services.stop()
        backend.close()


def match_keys(backend: RedisBackend, match_id: str) -> list[bytes]:
    k = backend.settings.keys
    return sorted(backend.redis.scan_iter(match=f"{k.tag(k.partition(match_id))}:match:{match_id}:*"))


def in_set(backend: RedisBackend, match_id: str, status: str) -> bool:
    return backend.redis.zscore(backend.settings.keys.match_matches(match_id, status), match_id) is not None


def test_finished_matches_are_archived_and_leave_redis(played: tuple[RedisBackend, list[str], str],
                                                      tmp_path: Path) -> None:
    backend, finished, running = played
    settings = backend.settings.with_(archive_grace_s=0.0)
    exported = {mid: load_match(backend.store, mid) for mid in finished}
    running_keys = match_keys(backend, running)
    assert all(len(match_keys(backend, mid)) >= 5 for mid in finished)

    report = Archiver(backend.redis, settings, tmp_path).run_once()

    assert sorted(report.archived) == sorted(finished) and not report.errors
    for mid in finished:
        path = archive_path(tmp_path, mid, settings.partitions)
        assert path == tmp_path / str(settings.keys.partition(mid)) / f"{mid}.jsonl.gz"
        assert path.read_bytes()[:2] == b"\x1f\x8b"
        archived = read_match(path)  # what `airship replay` and the gateway read
        assert archived.events == exported[mid].events and archived.meta == exported[mid].meta
        assert archived.meta is not None and archived.meta.seed is not None and archived.meta.status == "finished"
        assert match_keys(backend, mid) == []
        assert not in_set(backend, mid, "finished")
        assert backend.redis.zscore(pending_key(settings.keys, settings.keys.partition(mid)), mid) is None
    assert match_keys(backend, running) == running_keys and in_set(backend, running, "running")
    assert not list(tmp_path.rglob(f"{running}*")) and not list(tmp_path.rglob(".*.tmp"))
    # a second pass finds nothing to do
    again = Archiver(backend.redis, settings, tmp_path).run_once()
    assert again.archived == [] and not again.errors


def test_airship_replay_reads_the_archive(played: tuple[RedisBackend, list[str], str], tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    from services.cli import main

    backend, finished, _ = played
    Archiver(backend.redis, backend.settings.with_(archive_grace_s=0.0), tmp_path).run_once()
    path = archive_path(tmp_path, finished[0], backend.settings.partitions)
    assert main(["replay", str(path)]) == 0
    assert capsys.readouterr().out


def test_the_grace_period_keeps_recently_finished_matches(played: tuple[RedisBackend, list[str], str],
                                                          tmp_path: Path) -> None:
    backend, finished, _ = played
    now = [1e12]
    archiver = Archiver(backend.redis, backend.settings.with_(archive_grace_s=3600.0), tmp_path, clock=lambda: now[0])
    # the finish time comes from the results stream: the last result was written just now (real time)
    now[0] = time.time()
    first = archiver.run_once()
    assert first.archived == [] and first.waiting == len(finished)
    assert all(match_keys(backend, mid) for mid in finished) and not list(tmp_path.rglob("*.gz"))
    now[0] += 3601
    assert sorted(archiver.run_once().archived) == sorted(finished)


def test_a_crash_between_the_file_and_the_deletion_loses_nothing(played: tuple[RedisBackend, list[str], str],
                                                                 tmp_path: Path) -> None:
    """The real process dies (os._exit) right after writing and verifying the first file; run again."""
    backend, finished, running = played
    s = backend.settings
    exported = {mid: load_match(backend.store, mid) for mid in finished}
    env = {**os.environ, "AIRSHIP_GAME_MODULES": GAME_MODULES, "AIRSHIP_FAULT": "archive_written",
           "AIRSHIP_ARCHIVE_GRACE_S": "0", "AIRSHIP_HEALTH_PORT": "0", "AIRSHIP_METRICS_PORT": "0"}
    cmd = [sys.executable, "-m", "services.cli", "--log-level", "error", "archiver", "--once", "--redis",
           s.redis_url, "--prefix", s.key_prefix, "--partitions", str(s.partitions), "--dir", str(tmp_path)]
    assert subprocess.run(cmd, env=env, cwd=ROOT, timeout=60).returncode == EXIT_CODE
    files = sorted(tmp_path.rglob("*.jsonl.gz"))
    assert len(files) == 1
    crashed = files[0].name.removesuffix(".jsonl.gz")
    assert match_keys(backend, crashed) and in_set(backend, crashed, "finished")  # file written, keys still there
    written = files[0].stat().st_mtime_ns

    env.pop("AIRSHIP_FAULT")
    assert subprocess.run(cmd, env=env, cwd=ROOT, timeout=60).returncode == 0
    files = sorted(tmp_path.rglob("*.jsonl.gz"))
    assert sorted(f.name for f in files) == sorted(f"{mid}.jsonl.gz" for mid in finished)
    assert files[[f.name for f in files].index(f"{crashed}.jsonl.gz")].stat().st_mtime_ns == written  # not rewritten
    for mid in finished:
        assert read_match(archive_path(tmp_path, mid, s.partitions)).events == exported[mid].events
        assert match_keys(backend, mid) == [] and not in_set(backend, mid, "finished")
    assert match_keys(backend, running) and in_set(backend, running, "running")


def test_the_steps_one_by_one_and_a_file_that_is_not_the_match(played: tuple[RedisBackend, list[str], str],
                                                               tmp_path: Path) -> None:
    backend, finished, running = played
    archiver = Archiver(backend.redis, backend.settings.with_(archive_grace_s=0.0), tmp_path)
    mid = finished[0]
    match = archiver.load(mid)
    assert match is not None
    path = archiver.write(match)
    assert archiver.write(match) == path  # already there: verified, not rewritten
    # a crash here: the next pass deletes the keys and keeps the file
    assert archiver.archive(mid) is True and match_keys(backend, mid) == []
    assert read_match(path).events == match.events
    archiver.remove(mid, None)  # nothing left: no error, nothing deleted twice

    # a file at the archive path that holds another log is never replaced, and the match stays in Redis
    other = finished[1]
    bad = archive_path(tmp_path, other, backend.settings.partitions)
    bad.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(bad, "wt") as f:
        f.write(json.dumps({"kind": "meta", "match_id": other, "game": "nim", "seats": 3}) + "\n")
    with pytest.raises(ArchiveError, match="different"):
        archiver.archive(other)
    assert match_keys(backend, other)
    # a running match is never removed
    with pytest.raises(ArchiveError, match="running"):
        archiver.archive(running)
    assert match_keys(backend, running)


def test_the_worker_purges_only_a_finished_match_at_the_archived_version(
        played: tuple[RedisBackend, list[str], str]) -> None:
    """The purge the archiver publishes is decided by a worker: a running match, or a finished one at another
    version than the archive's, keeps every key (whoever published it)."""
    from services.archive.purge import publish_purge, wait_purged

    backend, finished, running = played
    k = backend.settings.keys
    version = backend.store.version(running)
    kept = {mid: match_keys(backend, mid) for mid in (running, finished[0])}
    publish_purge(backend.redis, k, running, "finished", version)
    publish_purge(backend.redis, k, running, "open")
    publish_purge(backend.redis, k, finished[0], "finished", backend.store.version(finished[0]) - 1)
    publish_purge(backend.redis, k, finished[1], "finished", backend.store.version(finished[1]))  # the real one
    assert wait_purged(backend.redis, k, [finished[1]], "finished", 10.0) == {finished[1]}
    assert match_keys(backend, finished[1]) == [] and not in_set(backend, finished[1], "finished")
    for mid in kept:  # every purge was taken and acknowledged by the worker
        stream = k.commands(k.partition(mid))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not all(
                g["lag"] == 0 and g["pending"] == 0 for g in backend.redis.xinfo_groups(stream)):
            time.sleep(0.02)
    assert {mid: match_keys(backend, mid) for mid in kept} == kept
    assert in_set(backend, running, "running") and in_set(backend, finished[0], "finished")
