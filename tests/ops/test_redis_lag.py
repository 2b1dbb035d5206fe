"""An idle stack shows no backlog after a Redis restart (issue #32): the shipped config (redis.conf with AOF +
users.acl), a real ``airship worker`` as the ``worker`` user with its metrics port, matches played, Redis killed
with SIGKILL and restarted from its AOF; then the worker's ``airship_stream_lag`` gauges (what the backlog
recording rule, the alerts and the dashboard read) must all be 0, and on Redis >= 7.4 (what ships, and what the
tests run: infra/dev/install-redis.sh) so must ``XINFO GROUPS``' lag, which KEDA's lagCount reads itself.

Redis before 7.4 loses ``entries-read`` over the AOF reload (redis/redis#12898): its lag is then unknown (nil) or,
as an operator saw on an idle stack, thousands. The gauge does not depend on it (it counts what follows the
group's last-delivered id, up to a cap): the second case runs Debian's 7.0, when installed, and checks the gauge
there too (7.0 is not supported for deployment, since KEDA reads XINFO's lag itself).
"""

from __future__ import annotations

import dataclasses
import re
import time
import urllib.request
from pathlib import Path

import pytest

from services import redis_binary
from services.settings import Settings
from tests.ops.conftest import free_port
from tests.ops.test_redis_durability import ACL, KP, RedisServer, play, settled
from tests.pipeline.redis_fixtures import spawn, stop

DEBIAN_REDIS = Path("/usr/bin/redis-server")


def scrape_lag(port: int) -> dict[str, float]:
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
    return {m[1]: float(m[2]) for m in re.finditer(r'^airship_stream_lag\{partition="(\d+)",stream="commands"\} (\S+)$',
                                                   text, re.M)}


def xinfo_lag(server: RedisServer) -> list[int | None]:
    with server.admin() as admin:
        return [next(g["lag"] for g in admin.xinfo_groups(KP.commands(p)) if g["name"] == "workers")
                for p in range(KP.partitions)]


def restart_idle(server: RedisServer, exe: str) -> tuple[list[int | None], dict[str, float]]:
    """Play, let the worker drain and report, kill -9 Redis, restart; return XINFO's lags and the gauges once the
    worker has reported twice after the restart."""
    metrics_port = free_port()
    settings = Settings(redis_url=server.url("worker"), key_prefix=KP.prefix, partitions=KP.partitions, block_ms=50,
                        claim_every_s=0.2)
    worker = spawn(settings, "worker", AIRSHIP_METRICS_PORT=str(metrics_port), AIRSHIP_HEALTH_PORT="0")
    projector = spawn(dataclasses.replace(settings, redis_url=server.url("projector")), "projector",
                      AIRSHIP_METRICS_PORT="0", AIRSHIP_HEALTH_PORT="0")
    try:
        play(server, [11, 12, 13, 14])
        with server.admin(decode=False) as admin:
            settled(admin)
        assert all(n == 0 for n in xinfo_lag(server)), "the worker did not drain the streams"
        server.kill()
        server.start()
        time.sleep(1.5)  # the worker reconnects and reports (every claim_every_s)
        deadline = time.monotonic() + 20
        while True:
            try:
                gauges = scrape_lag(metrics_port)
            except OSError:
                gauges = {}
            if len(gauges) == KP.partitions:
                time.sleep(0.5)
                return xinfo_lag(server), scrape_lag(metrics_port)
            assert time.monotonic() < deadline, "the worker reported no lag after the restart"
            time.sleep(0.2)
    finally:
        stop(worker)
        stop(projector)


def test_an_idle_stack_shows_no_backlog_after_an_aof_restart_on_the_shipped_redis(tmp_path: Path) -> None:
    exe = redis_binary.require()
    assert redis_binary.version_of(exe) >= redis_binary.MIN_VERSION
    server = RedisServer(tmp_path, exe=exe).start()
    try:
        with server.admin() as admin:
            assert redis_binary.server_version_ok(admin.info("server")["redis_version"])
        reported, gauges = restart_idle(server, exe)
    finally:
        server.stop()
    assert reported == [0] * KP.partitions
    assert gauges == {str(p): 0.0 for p in range(KP.partitions)}


@pytest.mark.skipif(not DEBIAN_REDIS.exists() or redis_binary.version_of(str(DEBIAN_REDIS)) >= (7, 4, 0),
                    reason="needs Debian's Redis 7.0 at /usr/bin/redis-server")
def test_before_7_4_the_gauge_is_still_right_after_a_restart(tmp_path: Path) -> None:
    # (7.0 has no CLIENT SETINFO, which the shipped users.acl allows the clients: redis-py sends it on 7.2+)
    acl = tmp_path / "users-7.0.acl"
    acl.write_text(ACL.read_text().replace(" +client|setinfo", ""))
    server = RedisServer(tmp_path, acl=acl, exe=str(DEBIAN_REDIS)).start()
    try:
        _reported, gauges = restart_idle(server, str(DEBIAN_REDIS))
    finally:
        server.stop()
    assert gauges == {str(p): 0.0 for p in range(KP.partitions)}
