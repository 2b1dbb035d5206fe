"""Backup and restore, rehearsed (#32; docs/runbooks/backup-restore.md): with the shipped Redis config and real
worker and projector processes, matches are played (some finished and archived, one still running), then
``infra/backup/backup.sh`` takes an RDB snapshot over the replication protocol and the archive while everything
runs; ``infra/backup/restore.sh`` restores it into a fresh data directory, Redis starts on it with the shipped
config (AOF); every key is as it was at the backup, every acknowledged result is there, the archived matches read
back, and fresh worker and projector processes carry the running match on."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from services import redis_binary
from services.archive.archiver import Archiver
from services.archive.files import archive_path, read_archive
from services.pipeline.direct import DirectClient
from services.pipeline.redis_backend import RedisBackend, connect
from services.settings import Settings
from tests.ops.conftest import ROOT
from tests.ops.test_redis_durability import KP, RedisServer, dump, pytestmark, settled
from tests.pipeline import nim  # noqa: F401  (registers the test game in this process)
from tests.pipeline.redis_fixtures import spawn, stop

__all__ = ["pytestmark"]
BACKUP = ROOT / "infra" / "backup" / "backup.sh"
RESTORE = ROOT / "infra" / "backup" / "restore.sh"


def settings_for(server: RedisServer, user: str, archive: Path) -> Settings:
    return Settings(redis_url=server.url(user), key_prefix=KP.prefix, partitions=KP.partitions, block_ms=50,
                    claim_every_s=0.2, archive_dir=str(archive), archive_grace_s=0.0)


def run_script(script: Path, *args: str, **env: str) -> str:
    done = subprocess.run(["bash", str(script), *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "REDIS_CLI": redis_binary.require("redis-cli"),
                               "REDIS_SERVER": redis_binary.require(), **env})
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_a_backup_restores_into_a_fresh_redis_and_the_matches_resume(tmp_path: Path) -> None:
    live_dir, archive = tmp_path / "live", tmp_path / "archive"
    live_dir.mkdir()
    server = RedisServer(live_dir).start()
    off = {"AIRSHIP_HEALTH_PORT": "0", "AIRSHIP_METRICS_PORT": "0"}
    procs = [spawn(settings_for(server, "worker", archive), "worker", **off),
             spawn(settings_for(server, "projector", archive), "projector", AIRSHIP_HEALTH_PORT="0",
                   AIRSHIP_METRICS_PORT="0")]
    trusted = RedisBackend(settings_for(server, "admin", archive))
    try:
        client = DirectClient(trusted, poll_ms=20)
        from tests.ops.test_redis_durability import play

        finished = play(server, [21, 22, 23])
        r = connect(server.url("admin"))
        archived = Archiver(r, settings_for(server, "admin", archive)).run_once().archived
        r.close()
        assert sorted(archived) == sorted(finished)
        meta = client.create_match("nim", 2, seed=31)
        creds = dict(client.join(meta.match_id, seat) for seat in range(2))
        acknowledged = []
        for _ in range(2):
            view = client.wait_view(meta.match_id, "public", client.match(meta.match_id).version, 30)
            seat = min(view.view["to_act"])
            result = client.call(meta.match_id, seat, creds[seat], "take", {"n": 1}, timeout_s=30)
            assert result.status == "accepted"
            acknowledged.append(result)
        with server.admin(decode=False) as admin:
            before = settled(admin)
        backup = tmp_path / "backup"
        run_script(BACKUP, str(backup), REDIS_URL=f"{server.url('admin')}", ARCHIVE_DIR=str(archive))
        assert (backup / "dump.rdb").stat().st_size > 0 and (backup / "archive.tar").exists()
        assert "keys:" in (backup / "manifest.txt").read_text()
    finally:
        trusted.close()
        for proc in procs:
            stop(proc)
        server.stop()

    # The disaster: the data directory and the archive are gone.
    shutil.rmtree(live_dir)
    shutil.rmtree(archive)
    fresh, restored_archive = tmp_path / "fresh", tmp_path / "restored-archive"
    out = run_script(RESTORE, str(backup), str(fresh), str(restored_archive))
    assert "restored" in out and (fresh / "appendonlydir").is_dir() and not (fresh / "dump.rdb").exists()
    restored = RedisServer(fresh).start()
    procs = []
    try:
        with restored.admin(decode=False) as admin:
            after = dump(admin)

        assert after == before  # (the dump leaves the workers' leases out: they lapse, they are not data)
        for result in acknowledged:
            assert KP.seen(meta.match_id) in after and result.command_id.encode() in after[KP.seen(meta.match_id)][1]
        for mid in finished:
            log = read_archive(archive_path(restored_archive, mid, KP.partitions))
            assert log is not None and log.meta is not None and log.meta.match_id == mid
        procs = [spawn(settings_for(restored, "worker", restored_archive), "worker", AIRSHIP_HEALTH_PORT="0",
                       AIRSHIP_METRICS_PORT="0"),
                 spawn(settings_for(restored, "projector", restored_archive), "projector", AIRSHIP_HEALTH_PORT="0",
                       AIRSHIP_METRICS_PORT="0")]
        backend = RedisBackend(settings_for(restored, "admin", restored_archive))
        try:
            client = DirectClient(backend, poll_ms=20)
            version = client.match(meta.match_id).version
            view = client.wait_view(meta.match_id, "public", version, 30)
            seat = min(view.view["to_act"])
            resumed = client.call(meta.match_id, seat, creds[seat], "take", {"n": 1}, timeout_s=30)
            assert resumed.status == "accepted" and resumed.version == version + 1, resumed
            assert client.wait_view(meta.match_id, "public", resumed.version, 30).version == resumed.version
        finally:
            backend.close()
    finally:
        for proc in procs:
            stop(proc)
        restored.stop()
