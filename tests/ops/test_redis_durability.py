"""A Redis restart loses nothing acknowledged, with the shipped files (infra/redis/redis.conf + users.acl on a
free port, in a directory of its own): a real ``airship worker`` and ``airship projector``, each logged in as
its own user, serve matches played through the trusted client (every write a Lua script, stored in the AOF as
a MULTI/EXEC block); then Redis is killed with SIGKILL and restarted from the same directory, and later shut
down with SHUTDOWN and restarted: a full dump taken as admin (every key, every match log, every ``seen``
result) is the same before and after, and the same worker and projector serve new matches afterwards.

Redis 7 replays the AOF as the ``default`` user and re-checks that user's ACL on every EXEC
(redis/redis#14541): with a ``default`` that may only PING, every Lua write was dropped on restart while Redis
logged "DB loaded". users.acl therefore turns ``default`` off (nobody can log in as it) with every permission,
and redis.conf makes a replay error fatal (``propagation-error-behavior panic``): both are tested here.

The kill uses the shipped ``appendfsync everysec``: Redis writes the AOF to the kernel before it replies, so a
killed process loses nothing once ``aof_buffer_length`` is 0 (waited for; a host crash may lose ~1 s).
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis
import yaml

from services.bots.base import RandomBot
from services.bots.runner import play_match
from services.keys import Keys
from services.pipeline.direct import DirectClient
from services.pipeline.redis_backend import RedisBackend
from services.settings import Settings
from tests.ops.conftest import ROOT, free_port
from tests.pipeline import nim  # noqa: F401  (registers the test game in this process)
from tests.pipeline.redis_fixtures import spawn, stop

CONF = ROOT / "infra" / "redis" / "redis.conf"
ACL = ROOT / "infra" / "redis" / "users.acl"
KP = Keys(partitions=4)

pytestmark = pytest.mark.skipif(not any(Path(p, "redis-server").exists() for p in os.get_exec_path()),
                                reason="redis-server is not installed (make test installs it)")


def password(user: str) -> str:
    line = next(x for x in ACL.read_text().splitlines() if x.split()[1] == user)
    return next((w[1:] for w in line.split() if w.startswith(">")), "")


@dataclass
class RedisServer:
    """redis-server from the shipped redis.conf with dir, port, bind and aclfile (and ``extra``) overridden."""

    dir: Path
    acl: Path = ACL
    extra: dict[str, str] = field(default_factory=dict)
    port: int = field(default_factory=free_port)
    exe: str = "redis-server"
    proc: subprocess.Popen[bytes] | None = None

    def url(self, user: str) -> str:
        return f"redis://{user}:{password(user)}@127.0.0.1:{self.port}/0"

    def admin(self, decode: bool = True) -> redis.Redis:
        return redis.Redis(port=self.port, username="admin", password=password("admin"), decode_responses=decode)

    def start(self, wait: bool = True) -> RedisServer:
        overrides = {"dir": str(self.dir), "aclfile": str(self.acl), "bind": "127.0.0.1", "port": str(self.port),
                     "logfile": str(self.dir / "redis.log"), **self.extra}
        lines = [line for line in CONF.read_text().splitlines() if line.split(" ", 1)[0] not in overrides]
        (self.dir / "redis.conf").write_text("\n".join([*lines, *(f"{k} {v}" for k, v in overrides.items())]) + "\n")
        self.proc = subprocess.Popen([self.exe, str(self.dir / "redis.conf")], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        if wait:
            with self.admin() as admin:
                deadline = time.monotonic() + 30
                while True:
                    try:
                        admin.ping()  # BusyLoadingError (a ConnectionError) while the AOF loads
                        break
                    except redis.ConnectionError:
                        assert self.proc.poll() is None, f"redis-server exited:\n{self.log()[-3000:]}"
                        assert time.monotonic() < deadline, "redis-server did not answer"
                        time.sleep(0.05)
        return self

    def log(self) -> str:
        path = self.dir / "redis.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def shutdown(self) -> None:
        assert self.proc is not None
        with self.admin() as admin:
            admin.shutdown()  # (redis-py expects the connection to close)
        assert self.proc.wait(timeout=20) == 0

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RedisServer]:
    started = RedisServer(tmp_path).start()
    yield started
    started.stop()


def dump(admin: redis.Redis) -> dict[str, Any]:
    """Every key with its type and whole value; streams with their entries and consumer groups (name,
    last delivered id, pending count; not the consumers' idle times, which the waiting processes renew);
    the workers' heartbeat hash by its members only. Not the partitions' leases: they live 1.5 s by design (the
    worker holding one renews it; one that expired while Redis was down is taken again at once)."""
    out: dict[str, Any] = {}
    for key in sorted(admin.scan_iter(count=1000)):
        if key.endswith(b":lease"):
            continue
        named = admin.type(key)
        kind = named.decode() if isinstance(named, bytes) else str(named)
        value: Any
        if kind == "string":
            value = admin.get(key)
        elif kind == "hash" and key.endswith(b":workers"):  # worker heartbeats: who, not when (renewed every second)
            value = sorted(admin.hkeys(key))
        elif kind == "hash":
            value = admin.hgetall(key)
        elif kind == "zset":
            value = admin.zrange(key, 0, -1, withscores=True)
        elif kind == "set":
            value = sorted(admin.smembers(key))
        elif kind == "list":
            value = admin.lrange(key, 0, -1)
        else:
            assert kind == "stream", (key, kind)
            groups = [(g["name"], g["last-delivered-id"], g["pending"]) for g in admin.xinfo_groups(key)]
            value = (admin.xrange(key), sorted(groups))
        out[str(key, "ascii")] = (kind, value, admin.pttl(key) > 0)
    return out


def settled(admin: redis.Redis) -> dict[str, Any]:
    """A dump once the running processes have nothing left to write (two dumps in a row agree) and the AOF
    is in the kernel (``aof_buffer_length`` 0: a SIGKILL cannot lose it)."""
    last: dict[str, Any] = {}
    deadline = time.monotonic() + 20
    while True:
        time.sleep(0.3)
        now = dump(admin)
        info = admin.info("persistence")
        if now == last and info["aof_buffer_length"] == 0 and not info["aof_rewrite_in_progress"]:
            return now
        assert time.monotonic() < deadline, "Redis did not settle"
        last = now


def play(server: RedisServer, seeds: list[int]) -> list[str]:
    """Matches of nim to the end through the trusted client (as admin); returns their ids."""
    settings = Settings(redis_url=server.url("admin"), key_prefix=KP.prefix, partitions=KP.partitions, block_ms=50)
    backend = RedisBackend(settings)
    try:
        client = DirectClient(backend, poll_ms=50)
        return [play_match(client, "nim", 2, [RandomBot(seed), RandomBot(seed + 1)], seed=seed,
                           timeout_s=30).meta.match_id for seed in seeds]
    finally:
        backend.close()


def check_matches(snapshot: dict[str, Any], match_ids: list[str]) -> None:
    """Each match's log holds versions 1..n and its meta says n; every command has its ``seen`` result."""
    for mid in match_ids:
        meta = snapshot[KP.meta(mid)][1]
        entries = snapshot[KP.log(mid)][1][0]
        assert [e[0] for e in entries] == [f"{v}-0".encode() for v in range(1, len(entries) + 1)], mid
        assert int(meta[b"version"]) == len(entries) > 2 and meta[b"status"] == b"finished", mid
        assert len(snapshot[KP.seen(mid)][1]) >= 1, mid


def test_a_kill_and_a_shutdown_lose_nothing_and_the_worker_carries_on(server: RedisServer) -> None:
    def settings(user: str) -> Settings:
        return Settings(redis_url=server.url(user), key_prefix=KP.prefix, partitions=KP.partitions, block_ms=50,
                        claim_every_s=0.2)

    off = {"AIRSHIP_HEALTH_PORT": "0", "AIRSHIP_METRICS_PORT": "0"}
    procs = [spawn(settings("worker"), "worker", **off), spawn(settings("projector"), "projector", **off)]
    try:
        played = play(server, [1, 2, 3])
        for how in ("kill", "shutdown"):
            with server.admin(decode=False) as admin:
                before = settled(admin)
            check_matches(before, played)
            assert sum(1 for k in before if k.endswith(":log")) == len(played)
            server.kill() if how == "kill" else server.shutdown()
            server.start()
            with server.admin(decode=False) as admin:
                after = dump(admin)
            missing = sorted(set(before) - set(after))
            assert not missing, f"after {how}: keys lost: {missing}"
            assert after == before, f"after {how}: changed: {[k for k in before if after[k] != before[k]]}"
            assert "AOF-loading-client" not in server.log(), "an AOF command was refused on replay"
            # the same worker and projector processes, reconnected, serve new matches
            played += play(server, [10 + len(played)])
            assert all(p.poll() is None for p in procs), "a process stopped when Redis restarted"
        with server.admin(decode=False) as admin:
            check_matches(settled(admin), played)
            assert {c["user"] for c in admin.client_list()} >= {"worker", "projector"}
    finally:
        for proc in procs:
            stop(proc)


def _raw(port: int, *commands: tuple[str, ...]) -> list[bytes]:
    """The first reply line of each command, sent on one plain connection (no client library behaviour)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn, conn.makefile("rb") as replies:
        answers = []
        for argv in commands:
            conn.sendall(f"*{len(argv)}\r\n".encode() + b"".join(f"${len(a)}\r\n{a}\r\n".encode() for a in argv))
            answers.append(replies.readline().rstrip())
        return answers


def test_nobody_can_log_in_as_default_or_act_without_a_password(server: RedisServer) -> None:
    anonymous = _raw(server.port, ("PING",), ("GET", "x"), ("INFO",), ("XADD", "s", "*", "k", "v"),
                     ("EVAL", "return 1", "0"), ("HELLO", "3"), ("ACL", "WHOAMI"))
    assert all(a.startswith((b"-NOAUTH", b"-NOPERM")) for a in anonymous), anonymous
    tries = [("AUTH", "default", s) for s in ("", "nopass", "x", password("admin"))]
    answers = _raw(server.port, *tries, ("HELLO", "3", "AUTH", "default", "x"), ("PING",))
    assert all(a.startswith(b"-WRONGPASS") for a in answers[:-1]) and answers[-1].startswith(b"-NOAUTH"), answers
    with server.admin() as admin:
        default = admin.acl_getuser("default")
        assert "off" in default["flags"] and "nopass" not in default["flags"] and not default["passwords"]
    assert _raw(server.port, ("AUTH", "exporter", password("exporter")), ("PING",)) == [b"+OK", b"+PONG"]


def test_a_replay_error_stops_redis_instead_of_losing_writes(tmp_path: Path) -> None:
    """With the old layout (``default`` may only PING) the restart used to drop every Lua write and report
    success; now Redis refuses to start (propagation-error-behavior panic) and the AOF stays for a fixed ACL."""
    old = tmp_path / "old.acl"
    old.write_text(re.sub(r"^user default .*$", "user default on nopass resetkeys resetchannels -@all +ping",
                          ACL.read_text(), count=1, flags=re.M))
    first = RedisServer(tmp_path, acl=old).start()
    try:
        with first.admin() as admin:
            admin.eval("redis.call('SET', KEYS[1], 'a'); redis.call('SET', KEYS[2], 'b')", 2, "{p}:a", "{p}:b")
        first.shutdown()
        again = RedisServer(tmp_path, acl=old, port=first.port).start(wait=False)
        assert again.proc is not None and again.proc.wait(timeout=20) != 0, "Redis started without the writes"
        assert "panicked sending an error to its AOF-loading-client" in again.log()
        fixed = RedisServer(tmp_path, port=first.port).start()  # the shipped users.acl: all there
        with fixed.admin() as admin:
            assert admin.mget("{p}:a", "{p}:b") == ["a", "b"]
        fixed.stop()
    finally:
        first.stop()


def probes() -> dict[str, str]:
    """The Redis health checks of docker-compose.yml and the k8s dev StatefulSet, as shell commands."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["redis"]["healthcheck"]["test"]
    assert compose[0] == "CMD-SHELL"
    docs = yaml.safe_load_all((ROOT / "k8s" / "components" / "redis-dev" / "statefulset.yaml").read_text())
    sts = next(d for d in docs if d["kind"] == "StatefulSet")
    command = sts["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["exec"]["command"]
    assert command[:2] == ["sh", "-c"]
    return {"compose": compose[1].replace("$$", "$"), "k8s": command[2]}


@pytest.mark.parametrize("where", ["compose", "k8s"])
def test_the_redis_health_check_logs_in_and_fails_when_redis_does_not_answer(server: RedisServer,
                                                                              where: str) -> None:
    probe = probes()[where].replace("/etc/redis/users.acl", str(ACL))
    assert "redis-cli " in probe and "dev-password" not in probe

    def run(port: int) -> int:
        command = probe.replace("redis-cli ", f"redis-cli -p {port} ", 1)
        return subprocess.run(["sh", "-c", command], capture_output=True, timeout=20).returncode

    assert run(server.port) == 0
    assert run(free_port()) != 0  # nothing listens
    with server.admin() as admin:
        admin.acl_setuser("exporter", enabled=False)  # answers, but not PONG
        try:
            assert run(server.port) != 0
        finally:
            admin.acl_setuser("exporter", enabled=True)
