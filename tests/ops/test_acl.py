"""The Redis config and ACL users load into a real redis-server, and each role may run exactly what
its process needs (ACL DRYRUN): no role but admin may flush, delete, or read another role's secrets,
and a bot may write nothing but commands."""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import pytest

from services.pipeline.keys import Keys
from tests.ops.conftest import ROOT, free_port

CONF = ROOT / "infra" / "redis" / "redis.conf"
ACL = ROOT / "infra" / "redis" / "users.acl"
K = Keys()
P = 3
CMDS, FEED, DEAD, LOG, META = K.commands(P), K.feed(P), K.dead(P), K.log("m1"), K.meta("m1")
VIEW, RESULTS, SEEN, MATCHES = K.view("m1", "public"), K.results("m1"), K.seen("m1"), K.matches(P, "open")


@pytest.fixture(scope="module")
def admin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A redis-server from infra/redis/redis.conf (dir, port, bind and aclfile pointed here)."""
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed (make test installs it)")
    import redis

    tmp = tmp_path_factory.mktemp("redis")
    port = free_port()
    overrides = {"dir": str(tmp), "aclfile": str(ACL), "bind": "127.0.0.1", "port": str(port)}
    lines = [f"{k} {overrides[k]}" if (k := line.split(" ", 1)[0]) in overrides else line
             for line in CONF.read_text().splitlines()]
    conf = tmp / "redis.conf"
    conf.write_text("\n".join(lines) + "\n")
    proc = subprocess.Popen(["redis-server", str(conf)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    client = redis.Redis(port=port, username="admin", password="admin-dev-password", decode_responses=True)
    try:
        for _ in range(100):
            if proc.poll() is not None:
                out = proc.stdout.read().decode() if proc.stdout else ""
                pytest.fail(f"redis-server refused infra/redis config:\n{out[-2000:]}")
            try:
                client.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        yield client
    finally:
        client.close()
        proc.terminate()
        proc.wait(timeout=10)


def allowed(admin: Any, user: str, *argv: str) -> bool:
    answer = admin.execute_command("ACL", "DRYRUN", user, *argv)
    return bool(answer == "OK")


ALLOWED: dict[str, list[tuple[str, ...]]] = {
    "worker": [
        ("XREADGROUP", "GROUP", "workers", "w1", "COUNT", "64", "BLOCK", "1000", "STREAMS", CMDS, ">"),
        ("XACK", CMDS, "workers", "1-0"), ("XAUTOCLAIM", CMDS, "workers", "w1", "30000", "0-0"),
        ("XGROUP", "CREATE", CMDS, "workers", "0", "MKSTREAM"), ("XINFO", "GROUPS", CMDS),
        ("XADD", DEAD, "*", "k", "v"), ("XRANGE", LOG, "-", "+"), ("HGETALL", META),
        ("EVALSHA", "0" * 40, "2", LOG, FEED), ("PING",),
    ],
    "projector": [
        ("XREADGROUP", "GROUP", "projectors", "p1", "STREAMS", FEED, ">"), ("XACK", FEED, "projectors", "1-0"),
        ("XINFO", "GROUPS", FEED), ("SET", VIEW, "v"), ("XRANGE", LOG, "-", "+"), ("HGETALL", META),
    ],
    "lobby": [("XADD", CMDS, "*", "k", "v"), ("HSET", META, "a", "b"), ("XADD", LOG, "1-0", "k", "v"),
              ("XADD", FEED, "*", "k", "v"), ("ZADD", MATCHES, "1", "m1"), ("XREAD", "STREAMS", RESULTS, "0")],
    "bot": [("XADD", CMDS, "*", "k", "v"), ("XREAD", "BLOCK", "100", "STREAMS", RESULTS, "0"), ("GET", VIEW),
            ("HGETALL", META), ("XRANGE", LOG, "-", "+")],
    "reader": [("XRANGE", LOG, "-", "+"), ("HGETALL", META), ("ZRANGE", MATCHES, "0", "-1"), ("GET", VIEW)],
    "keda": [("XINFO", "GROUPS", CMDS), ("XPENDING", CMDS, "workers"), ("XLEN", CMDS)],
    "exporter": [("INFO",), ("PING",)],
    "default": [("PING",)],
}

DENIED: dict[str, list[tuple[str, ...]]] = {
    "worker": [("FLUSHALL",), ("DEL", LOG), ("KEYS", "*"), ("CONFIG", "SET", "save", ""), ("GET", "other:key"),
               ("ACL", "LIST")],
    "projector": [("FLUSHDB",), ("DEL", VIEW), ("XGROUP", "DESTROY", FEED, "projectors"), ("HSET", META, "a", "b")],
    "lobby": [("SET", VIEW, "forged"), ("XADD", RESULTS, "*", "k", "v"), ("HSET", SEEN, "c", "r"),
              ("XREADGROUP", "GROUP", "workers", "x", "STREAMS", CMDS, ">"), ("DEL", LOG)],
    "bot": [("XADD", FEED, "*", "k", "v"), ("XADD", LOG, "9-0", "k", "v"), ("HSET", META, "a", "b"),
            ("XREADGROUP", "GROUP", "workers", "x", "STREAMS", CMDS, ">"), ("XACK", CMDS, "workers", "1-0"),
            ("EVALSHA", "0" * 40, "1", LOG), ("XDEL", CMDS, "1-0"), ("SET", VIEW, "forged"), ("FLUSHALL",)],
    "reader": [("XADD", CMDS, "*", "k", "v"), ("SET", VIEW, "v"), ("KEYS", "*")],
    "keda": [("XADD", CMDS, "*", "k", "v"), ("XRANGE", CMDS, "-", "+"), ("GET", VIEW)],
    "exporter": [("GET", VIEW), ("XRANGE", LOG, "-", "+"), ("CONFIG", "SET", "save", "")],
    "default": [("GET", VIEW), ("INFO",), ("XADD", CMDS, "*", "k", "v")],
}


@pytest.mark.parametrize(("user", "argv"), [(u, a) for u, cmds in ALLOWED.items() for a in cmds])
def test_each_role_may_run_what_it_needs(admin: Any, user: str, argv: tuple[str, ...]) -> None:
    assert allowed(admin, user, *argv), f"{user} is refused {' '.join(argv)}"


@pytest.mark.parametrize(("user", "argv"), [(u, a) for u, cmds in DENIED.items() for a in cmds])
def test_each_role_is_refused_what_it_does_not_need(admin: Any, user: str, argv: tuple[str, ...]) -> None:
    assert not allowed(admin, user, *argv), f"{user} may run {' '.join(argv)}"


def test_every_user_but_default_has_a_password(admin: Any) -> None:
    users = {line.split()[1]: line for line in admin.acl_list()}
    assert set(users) == set(ALLOWED) | {"admin"}
    for name, line in users.items():
        assert ("nopass" in line) == (name == "default"), line


def test_the_keys_module_and_the_acl_agree_on_the_prefix() -> None:
    assert Keys().prefix == "airship"
    assert "~airship:*" in ACL.read_text()


def test_the_k8s_dev_redis_uses_the_same_config_and_users() -> None:
    dev = ROOT / "k8s" / "components" / "redis-dev"
    assert (dev / "redis.conf").read_text() == CONF.read_text()
    assert (dev / "users.acl").read_text() == ACL.read_text()


def test_the_redis_urls_of_compose_and_k8s_dev_log_in(admin: Any) -> None:
    import redis

    files = [ROOT / "docker-compose.yml", *sorted((ROOT / "k8s").rglob("*.env"))]
    logins = {m for f in files for m in re.findall(r"redis://(\w+):([\w-]+)@", f.read_text())}
    assert {user for user, _ in logins} >= {"worker", "projector", "lobby"}
    port = admin.connection_pool.connection_kwargs["port"]
    for user, password in sorted(logins):
        client = redis.Redis(port=port, username=user, password=password)
        try:
            assert client.ping(), user
        finally:
            client.close()
