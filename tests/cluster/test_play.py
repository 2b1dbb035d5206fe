"""airship on a real Redis Cluster (3 masters, 1 replica each): the same processes, unchanged, each logged in as
its own ACL user; complete matches of every game through the gateway; and the chaos run with slots moved and
masters killed during play."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from schemas.clock import FORFEITED, TIMED_OUT
from schemas.envelopes import EventEnvelope
from services.archive.archiver import Archiver
from services.bots.base import RandomBot
from services.bots.runner import play_match
from services.chaos.checks import _views_differing
from services.chaos.redis_cluster import OwnCluster, command
from services.chaos.run import ChaosOptions, run_chaos, table
from services.client import GatewayClient
from services.games import get_game
from services.games.registry import builtin_games
from services.gateway.launch import wait_ready
from services.pipeline.redis_backend import RedisBackend
from services.pipeline.redis_conn import ADDRESSES_ENV, connect, is_cluster
from services.replay.files import MatchLog
from services.replay.verify import verify
from services.settings import Settings
from tests.gateway.stack import free_port, spawn_gateway
from tests.pipeline.redis_fixtures import spawn, stop

PREFIX = "airship"  # the ACL users reach only the production prefix; the cluster is private and flushed


def settings(cluster: OwnCluster, user: str) -> Settings:
    return Settings(redis_url=cluster.url(user), key_prefix=PREFIX, partitions=4, block_ms=50, claim_every_s=0.5)


def archive_and_rate(cluster: OwnCluster, env: dict[str, str], match_id: str, directory: Path) -> None:
    """The archiver and the ratings rebuild, as their own users, on the cluster: a finished match moved to its
    file and out of every node, and the ratings read model rebuilt (no rated match among anonymous seats)."""
    archiver = Archiver(connect(cluster.url("archiver")), settings(cluster, "archiver").with_(archive_grace_s=0),
                        directory)
    report = archiver.run_once()
    assert match_id in report.archived and not report.errors, report
    admin = connect(cluster.url("admin"))
    assert not admin.exists(settings(cluster, "admin").keys.meta(match_id))
    rebuild = subprocess.run([sys.executable, "-m", "services.cli", "ratings", "rebuild", "--redis",
                              cluster.url("ratings"), "--prefix", PREFIX, "--partitions", "4", "--archive-dir",
                              str(directory)], env={**os.environ, **env}, capture_output=True, text=True, timeout=120)
    assert rebuild.returncode == 0, rebuild.stderr[-2000:]


def clocked_match_forfeits(url: str, admin: RedisBackend) -> None:
    """A clocked match whose seats never move (#29): the workers' sweep of the partitions' clocks sets (each on its
    own master) decides every timeout once, the third in a row forfeits, and the log verifies."""
    with GatewayClient(url) as client:
        summary = client.create_match("mad-zeppelin", 2, clock={"kind": "move", "seconds": 0.3, "timeouts": 3})
        for seat in range(2):
            client.join(summary.match_id, seat)
    deadline = time.monotonic() + 30
    while (meta := admin.store.meta(summary.match_id)) is None or meta.status != "finished":
        assert time.monotonic() < deadline, "the clocked match did not end"
        time.sleep(0.2)
    log = admin.store.read_log(summary.match_id)
    timeouts = sum(e.type == TIMED_OUT for e in log)
    assert log[-1].type == FORFEITED and timeouts >= 2
    ids = [e.command_id for e in log if e.command is not None]
    assert len(ids) == len(set(ids)) == timeouts + 1
    report = verify(MatchLog(meta.model_copy(update={"seed": admin.store.seed(summary.match_id)}), log))
    assert report.ok, report.summary()


def test_every_game_through_the_gateway_with_each_process_as_its_own_user(redis_cluster: OwnCluster,
                                                                          tmp_path: Path) -> None:
    for node in redis_cluster.live():
        command(redis_cluster.admin(node), "ACL", "LOG", "RESET")
    env = {ADDRESSES_ENV: redis_cluster.addresses, "AIRSHIP_APPEND_REPLICAS": "1",  # (the production overlay's)
           "AIRSHIP_HEALTH_PORT": "0", "AIRSHIP_METRICS_PORT": "0"}
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    procs = [spawn(settings(redis_cluster, "worker"), "worker", **env),
             spawn(settings(redis_cluster, "worker"), "worker", **env),
             spawn(settings(redis_cluster, "projector"), "projector", **env),
             spawn_gateway(settings(redis_cluster, "gateway"), port, **env)]
    admin = RedisBackend(settings(redis_cluster, "admin"))
    try:
        assert is_cluster(admin.redis)  # (chosen by asking the server: nothing in the URL says cluster)
        wait_ready(url, procs[-1])
        reports = []
        for i, game in enumerate(builtin_games()):
            seats = min(3, get_game(game).max_seats)
            with GatewayClient(url) as client:
                reports.append(play_match(client, game, seats, [RandomBot(i * 10 + s) for s in range(seats)],
                                          timeout_s=60))
        for report in reports:
            match_id = report.meta.match_id
            log: list[EventEnvelope] = admin.store.read_log(match_id)
            assert [e.version for e in log] == list(range(1, report.version + 1))
            assert admin.store.meta(match_id).status == "finished"  # type: ignore[union-attr]
            assert _views_differing(admin, match_id, log) == 0
        clocked_match_forfeits(url, admin)
        archive_and_rate(redis_cluster, env, reports[0].meta.match_id, tmp_path)
        slots = {redis_cluster.owner_of(redis_cluster.slot_of(f"{{{p}}}")).port for p in range(4)}
        assert len(slots) >= 2, "the four partitions live on one master: the test would not span the cluster"
        refused = [(e[b"username"] if isinstance(e, dict) else e) for node in redis_cluster.live()
                   for e in command(redis_cluster.admin(node), "ACL", "LOG")]
        assert not refused, f"a node refused the processes: {refused}"
        assert all(p.poll() is None for p in procs), "a process died"
    finally:
        for proc in procs:
            stop(proc)
        admin.close()


def test_chaos_on_the_cluster_moves_slots_and_kills_masters_without_a_violation() -> None:
    """Its own cluster (the session's is left alone): workers killed, a busy partition's slot moved and a master
    killed in turn during play; every guarantee checked with appends waiting for a replica."""
    report = run_chaos(ChaosOptions(cluster=True, matches=6, workers=2, concurrency=3, kill_every_s=4,
                                    restart_every_s=5, partitions=4, timeout_s=60, seed=3))
    assert report.slots_moved >= 1 and report.failovers >= 1, table(report)
    assert report.findings.acked_before_restart > 0, table(report)
    assert report.violations == 0, table(report)
