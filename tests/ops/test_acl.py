"""The Redis config and ACL users load into a real redis-server (infra/redis/redis.conf + users.acl on a free
port, its own directory), and each role may run exactly what its process needs:

- for real: a worker, a projector and the gateway (``airship gateway``), each logged in as its own user,
  play a match of nim through the gateway's HTTP API to the end, and Redis refuses none of their commands
  (ACL LOG stays empty);
- for real, on the keys that match left behind: what each role must never do is refused (the gateway
  never reads a seed, never deletes or trims, never writes views or results; a script the gateway runs
  can do no more than the gateway may);
- and the whole table of commands with ``ACL DRYRUN``.

Redis 7 checks a script's commands against the caller's ACL, and every key named in EVALSHA's KEYS for
read *and* write access; so create_match.lua names the secret key after the meta key instead of taking it
in KEYS, and the gateway holds write-only (``%W~``), insert-only (SETNX) access to it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from services.keys import Keys
from services.settings import Settings
from tests.gateway import nim_http
from tests.ops.conftest import ROOT, free_port

CONF = ROOT / "infra" / "redis" / "redis.conf"
ACL = ROOT / "infra" / "redis" / "users.acl"
ROLES = {"default", "admin", "worker", "projector", "gateway", "keda", "exporter", "archiver"}
K = Keys()
P = 3
CMDS, FEED, DEAD, LOG, META = K.commands(P), K.feed(P), K.dead(P), K.log("m1"), K.meta("m1")
VIEW, RESULTS, SEEN, MATCHES = K.view("m1", "public"), K.results("m1"), K.seen("m1"), K.matches(P, "open")
SECRET, SENT, UPDATES = K.secret("m1"), K.sent("m1"), K.updates("m1")
RUNNING, FINISHED = K.matches(P, "running"), K.matches(P, "finished")
SHA = "0" * 40
KP = Keys(partitions=4)  # the keys of the match the real processes play


def passwords() -> dict[str, str]:
    """user -> its (development) password, from users.acl."""
    found = {}
    for line in ACL.read_text().splitlines():
        words = line.split()
        secret = next((w[1:] for w in words if w.startswith(">")), "")
        found[words[1]] = secret
    return found


@dataclass
class Server:
    port: int
    admin: Any  # redis.Redis logged in as admin (str replies)

    def url(self, user: str) -> str:
        return f"redis://{user}:{passwords()[user]}@127.0.0.1:{self.port}/0"

    def login(self, user: str) -> Any:
        import redis

        return redis.Redis(port=self.port, username=user, password=passwords()[user], decode_responses=True)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
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
    client = redis.Redis(port=port, username="admin", password=passwords()["admin"], decode_responses=True)
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
        yield Server(port, client)
    finally:
        client.close()
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(scope="module")
def admin(server: Server) -> Any:
    return server.admin


def allowed(admin: Any, user: str, *argv: str) -> bool:
    answer = admin.execute_command("ACL", "DRYRUN", user, *argv)
    return bool(answer == "OK")


# -- the real code path ------------------------------------------------------------------------------

@dataclass
class Played:
    match_id: str
    moves: int
    summary: dict[str, Any]
    log: dict[str, Any]
    users: set[str]  # the users of every client connection while the match was played


def play_nim(url: str) -> tuple[str, int]:
    """Create a two-seat nim match, join both seats and play it to the end, over HTTP only."""
    with httpx.Client(base_url=url, timeout=30.0) as http:
        match_id, _, moves = nim_http.play_nim(http)
    return match_id, moves


@pytest.fixture(scope="module")
def played(server: Server) -> Played:
    """A worker, a projector and the gateway as real processes, each logged in as its own Redis user, play a
    match of nim through the gateway to the end; the processes are stopped before the tests look at Redis."""
    from tests.gateway.stack import spawn_gateway, wait_ready
    from tests.pipeline.redis_fixtures import spawn, stop

    def settings(user: str) -> Settings:
        return Settings(redis_url=server.url(user), key_prefix=KP.prefix, partitions=KP.partitions, block_ms=50,
                        claim_every_s=0.5)

    server.admin.execute_command("ACL", "LOG", "RESET")
    off = {"AIRSHIP_HEALTH_PORT": "0", "AIRSHIP_METRICS_PORT": "0"}
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    procs = [spawn(settings("worker"), "worker", **off), spawn(settings("projector"), "projector", **off),
             spawn_gateway(settings("gateway"), port, **off)]
    try:
        wait_ready(url, procs[-1])
        match_id, moves = play_nim(url)
        with httpx.Client(base_url=url, timeout=10.0) as http:
            summary = nim_http.get_json(http, f"/matches/{match_id}")
            log = nim_http.get_json(http, f"/matches/{match_id}/log")
        users = {c["user"] for c in server.admin.client_list()}
    finally:
        for proc in procs:
            stop(proc)
    return Played(match_id, moves, summary, log, users)


def test_worker_projector_and_gateway_play_a_match_as_their_own_users(server: Server, played: Played) -> None:
    assert played.summary["status"] == "finished" and played.moves >= 3
    assert played.log["perspective"] == "full" and len(played.log["events"]) == played.summary["version"]
    assert played.users == {"admin", "worker", "projector", "gateway"}
    refused = [(e["username"], e["object"], e["reason"]) for e in server.admin.execute_command("ACL", "LOG")]
    assert not refused, f"Redis refused the real processes: {refused}"


def test_the_seed_is_stored_for_the_worker_and_hidden_from_the_gateway(server: Server, played: Played) -> None:
    import redis

    mid = played.match_id
    secret = KP.secret(mid)
    seed = server.admin.get(secret)
    assert seed is not None and int(seed) >= 0
    with server.login("worker") as worker:
        assert worker.get(secret) == seed
    assert "seed" not in server.admin.hkeys(KP.meta(mid))
    with server.login("gateway") as gateway:
        for argv in [("GET", secret), ("GETRANGE", secret, "0", "-1"), ("STRLEN", secret), ("DUMP", secret),
                     ("SET", secret, "1"), ("SET", secret, "1", "GET"), ("GETSET", secret, "1"), ("DEL", secret),
                     ("SORT", secret), ("OBJECT", "ENCODING", secret), ("TYPE", secret), ("SCAN", "0")]:
            with pytest.raises(redis.exceptions.NoPermissionError):
                gateway.execute_command(*argv)
        assert gateway.setnx(secret, "1") is False  # it may write a seed once; never overwrite one
        # A script runs with the caller's permissions, whether it names the key or builds its name.
        for script, key in [("return redis.call('GET', ARGV[1])", secret),  # a command it may not run
                            ("return redis.call('HGET', ARGV[1], 'x')", secret),  # a key it may not read
                            ("return redis.call('XRANGE', ARGV[1], '-', '+')", KP.commands(KP.partition(mid))),
                            ("return redis.call('XTRIM', ARGV[1], 'MAXLEN', 0)", KP.commands(KP.partition(mid)))]:
            with pytest.raises(redis.exceptions.ResponseError, match="user executing the script can't"):
                gateway.eval(script, 0, key)
        with pytest.raises(redis.exceptions.NoPermissionError):
            gateway.eval("return 1", 1, secret)  # a key in KEYS must be readable and writable
    with server.login("projector") as projector:
        for argv in [("GET", secret), ("HGETALL", secret), ("XRANGE", secret, "-", "+")]:
            with pytest.raises(redis.exceptions.NoPermissionError):
                projector.execute_command(*argv)
    assert server.admin.get(secret) == seed


REAL_DENIED: dict[str, list[tuple[str, ...]]] = {
    "gateway": [("XTRIM", "{cmds}", "MAXLEN", "0"), ("XDEL", "{cmds}", "0-1"), ("DEL", "{cmds}"),
                ("UNLINK", "{log}"), ("DEL", "{meta}"), ("FLUSHALL",), ("FLUSHDB",),
                ("XGROUP", "DESTROY", "{cmds}", "workers"), ("XGROUP", "SETID", "{cmds}", "workers", "$"),
                ("XREADGROUP", "GROUP", "workers", "x", "STREAMS", "{cmds}", ">"),
                ("XACK", "{cmds}", "workers", "0-1"), ("XRANGE", "{cmds}", "-", "+"),
                ("HSET", "{view}", "v", "999"), ("XADD", "{results}", "*", "r", "x"), ("HSET", "{seen}", "c", "r"),
                ("XADD", "{updates}", "*", "k", "public"), ("EXPIRE", "{log}", "1"), ("KEYS", "*"),
                ("CONFIG", "SET", "appendonly", "no"), ("ACL", "LIST"), ("SHUTDOWN",),
                ("SCRIPT", "FLUSH"), ("FUNCTION", "FLUSH")],
    "projector": [("XADD", "{cmds}", "*", "e", "x"), ("XTRIM", "{cmds}", "MAXLEN", "0"), ("HSET", "{meta}", "a", "b"),
                  ("XADD", "{log}", "999-0", "e", "x"), ("HSET", "{seen}", "c", "r"), ("DEL", "{view}"),
                  ("XGROUP", "DESTROY", "{feed}", "projectors"), ("FLUSHDB",)],
    "keda": [("XADD", "{cmds}", "*", "e", "x"), ("XTRIM", "{cmds}", "MAXLEN", "0"), ("HSET", "{meta}", "a", "b"),
             ("XGROUP", "DESTROY", "{cmds}", "workers"), ("XRANGE", "{cmds}", "-", "+"), ("HGETALL", "{meta}"),
             ("DEL", "{view}"), ("FLUSHALL",)],
    "exporter": [("HGETALL", "{meta}"), ("XRANGE", "{log}", "-", "+"), ("HGET", "{view}", "d"), ("GET", "{secret}"),
                 ("XLEN", "{cmds}"), ("KEYS", "*"), ("SCAN", "0"), ("DEL", "{meta}"), ("CONFIG", "SET", "save", "")],
}


@pytest.mark.parametrize(("user", "argv"), [(u, a) for u, cmds in REAL_DENIED.items() for a in cmds])
def test_each_role_is_refused_for_real_on_the_keys_of_a_played_match(server: Server, played: Played, user: str,
                                                                    argv: tuple[str, ...]) -> None:
    import redis

    mid = played.match_id
    names = {"cmds": KP.commands(KP.partition(mid)), "feed": KP.feed(KP.partition(mid)), "log": KP.log(mid),
             "meta": KP.meta(mid), "view": KP.view(mid, "public"), "results": KP.results(mid), "seen": KP.seen(mid),
             "updates": KP.updates(mid), "secret": KP.secret(mid)}
    with redis.Redis(port=server.port, username="admin", password=passwords()["admin"]) as raw:
        before = {name: raw.dump(key) for name, key in names.items()}
        assert all(before.values()), before
        with server.login(user) as client, pytest.raises(redis.exceptions.NoPermissionError):
            client.execute_command(*(word.format(**names) for word in argv))
        assert {name: raw.dump(key) for name, key in names.items()} == before


# -- the whole table, with ACL DRYRUN ----------------------------------------------------------------

ALLOWED: dict[str, list[tuple[str, ...]]] = {
    "worker": [
        ("XREADGROUP", "GROUP", "workers", "w1", "COUNT", "64", "BLOCK", "1000", "STREAMS", CMDS, ">"),
        ("XACK", CMDS, "workers", "1-0"), ("XAUTOCLAIM", CMDS, "workers", "w1", "30000", "0-0"),
        ("XGROUP", "CREATE", CMDS, "workers", "0", "MKSTREAM"), ("XINFO", "GROUPS", CMDS),
        ("TIME",), ("HSET", K.members(), "w1", "1"), ("HGETALL", K.members()), ("HDEL", K.members(), "w0"),
        ("XTRIM", CMDS, "MINID", "~", "1-0"), ("XADD", DEAD, "MAXLEN", "~", "10000", "*", "k", "v"),
        ("XRANGE", LOG, "-", "+"), ("HGETALL", META), ("GET", SECRET),
        ("EVALSHA", SHA, "8", META, LOG, SEEN, RESULTS, FEED, RUNNING, FINISHED, SENT), ("PING",),
        ("MULTI",), ("EXEC",), ("WAIT", "0", "10"),  # AIRSHIP_APPEND_REPLICAS
    ],
    "projector": [
        ("XREADGROUP", "GROUP", "projectors", "p1", "STREAMS", FEED, ">"), ("XACK", FEED, "projectors", "1-0"),
        ("XAUTOCLAIM", FEED, "projectors", "p1", "30000", "0-0"), ("XINFO", "GROUPS", FEED),
        ("XGROUP", "CREATE", FEED, "projectors", "0", "MKSTREAM"), ("XGROUP", "DELCONSUMER", FEED, "projectors", "p1"),
        ("XGROUP", "CREATE", CMDS, "workers", "0", "MKSTREAM"),  # every process makes sure the groups exist
        ("XRANGE", LOG, "-", "+"), ("HGETALL", META),
        ("EVALSHA", SHA, "3", VIEW, META, UPDATES), ("HSET", VIEW, "v", "3", "d", "x"),
        ("XADD", UPDATES, "MAXLEN", "~", "1000", "*", "k", "public", "v", "3"),
    ],
    "gateway": [
        ("HGETALL", META), ("HGET", META, "version"), ("ZREVRANGE", MATCHES, "0", "49", "WITHSCORES"),
        ("XADD", CMDS, "*", "e", "x"), ("HSET", SENT, "0.k1", "1"), ("HEXISTS", SENT, "0.k1"), ("HGET", SEEN, "0.k1"),
        ("XREVRANGE", RESULTS, "+", "-", "COUNT", "1"),
        ("XREAD", "BLOCK", "100", "STREAMS", RESULTS, UPDATES, "0", "0"),
        ("HGET", VIEW, "d"), ("XRANGE", LOG, "1-0", "+"),
        ("EVALSHA", SHA, "4", META, LOG, FEED, MATCHES), ("EVAL", "return 1", "4", META, LOG, FEED, MATCHES),
        ("EVALSHA", SHA, "4", META, MATCHES, RUNNING, FINISHED), ("SCRIPT", "LOAD", "return 1"),
        # what the scripts run, checked against the gateway's own permissions:
        ("EXISTS", META), ("SETNX", SECRET, "42"), ("HSET", META, "a", "b"), ("HSETNX", META, "cred:0", "h"),
        ("HINCRBY", META, "joined", "1"), ("XADD", LOG, "1-0", "e", "x"), ("ZADD", RUNNING, "1", "m1"),
        ("XADD", FEED, "MAXLEN", "~", "100000", "*", "e", "x"), ("ZREM", MATCHES, "m1"), ("PING",),
    ],
    "keda": [("XINFO", "GROUPS", CMDS), ("XPENDING", CMDS, "workers"), ("XLEN", CMDS)],
    "exporter": [("INFO",), ("PING",), ("CONFIG", "GET", "maxmemory"), ("DBSIZE",), ("SLOWLOG", "GET", "10")],
    # `default` is off (nobody logs in as it) with every permission, for the AOF replay: see
    # tests/ops/test_redis_durability.py, which also checks that no one can act as it.
}

DENIED: dict[str, list[tuple[str, ...]]] = {
    "worker": [("FLUSHALL",), ("DEL", LOG), ("KEYS", "*"), ("CONFIG", "SET", "save", ""), ("GET", "other:key"),
               ("ACL", "LIST")],
    "projector": [("FLUSHDB",), ("DEL", VIEW), ("XGROUP", "DESTROY", FEED, "projectors"), ("HSET", META, "a", "b"),
                  ("XADD", CMDS, "*", "k", "v"), ("XADD", LOG, "9-0", "k", "v"), ("XADD", FEED, "*", "k", "v"),
                  ("HSET", SEEN, "c", "r"), ("XADD", RESULTS, "*", "r", "x"), ("GET", SECRET),
                  ("XRANGE", CMDS, "-", "+"), ("XREADGROUP", "GROUP", "workers", "x", "STREAMS", CMDS, ">"),
                  ("EVALSHA", SHA, "1", SECRET), ("SET", VIEW, "v")],
    "gateway": [("GET", SECRET), ("SET", SECRET, "1"), ("SET", SECRET, "1", "GET"), ("EVALSHA", SHA, "1", SECRET),
                ("EVAL", "return 1", "5", META, LOG, FEED, MATCHES, SECRET),
                ("XTRIM", CMDS, "MAXLEN", "0"), ("XDEL", CMDS, "1-0"), ("DEL", CMDS), ("UNLINK", LOG), ("DEL", SECRET),
                ("FLUSHALL",), ("FLUSHDB",), ("XGROUP", "DESTROY", CMDS, "workers"),
                ("XGROUP", "CREATE", CMDS, "x", "$"),
                ("XREADGROUP", "GROUP", "workers", "x", "STREAMS", CMDS, ">"), ("XACK", CMDS, "workers", "1-0"),
                ("XRANGE", CMDS, "-", "+"), ("XREAD", "STREAMS", CMDS, "0"), ("HSET", VIEW, "v", "1"),
                ("XADD", UPDATES, "*", "k", "v"), ("XADD", RESULTS, "*", "r", "x"), ("HSET", SEEN, "c", "r"),
                ("XADD", DEAD, "*", "k", "v"), ("EXPIRE", LOG, "1"), ("KEYS", "*"), ("SCAN", "0"),
                ("XREADGROUP", "GROUP", "projectors", "x", "STREAMS", FEED, ">"),
                ("CONFIG", "SET", "save", ""), ("ACL", "LIST"), ("SCRIPT", "FLUSH"), ("GET", "other:key")],
    "keda": [("XADD", CMDS, "*", "k", "v"), ("XRANGE", CMDS, "-", "+"), ("GET", VIEW), ("XINFO", "GROUPS", FEED),
             ("HGETALL", META), ("XTRIM", CMDS, "MAXLEN", "0")],
    "exporter": [("GET", VIEW), ("XRANGE", LOG, "-", "+"), ("CONFIG", "SET", "save", ""), ("GET", SECRET),
                 ("HGETALL", META), ("SCAN", "0")],
}

# Redis ACLs know commands and keys, not arguments: whoever may XADD to a stream may pass MAXLEN/MINID and
# trim it. The gateway must XADD to the command streams (and, in create_match.lua, to logs and feeds).
NOT_ENFORCEABLE = [("gateway", ("XADD", CMDS, "MAXLEN", "0", "*", "e", "x")),
                   ("gateway", ("XADD", LOG, "MINID", "999", "*", "e", "x"))]


@pytest.mark.parametrize(("user", "argv"), [(u, a) for u, cmds in ALLOWED.items() for a in cmds])
def test_each_role_may_run_what_it_needs(admin: Any, user: str, argv: tuple[str, ...]) -> None:
    assert allowed(admin, user, *argv), f"{user} is refused {' '.join(argv)}"


@pytest.mark.parametrize(("user", "argv"), [(u, a) for u, cmds in DENIED.items() for a in cmds])
def test_each_role_is_refused_what_it_does_not_need(admin: Any, user: str, argv: tuple[str, ...]) -> None:
    assert not allowed(admin, user, *argv), f"{user} may run {' '.join(argv)}"


@pytest.mark.parametrize(("user", "argv"), NOT_ENFORCEABLE)
@pytest.mark.xfail(strict=True, reason="Redis ACLs cannot refuse an argument (XADD MAXLEN/MINID trims)")
def test_the_gateway_cannot_trim_while_it_adds(admin: Any, user: str, argv: tuple[str, ...]) -> None:
    assert not allowed(admin, user, *argv)


def test_every_user_but_default_has_a_password(admin: Any) -> None:
    users = {line.split()[1]: line for line in admin.acl_list()}
    assert set(users) == ROLES == set(passwords())
    for name, line in users.items():
        assert "nopass" not in line, line
        assert (" off " in f" {line} ") == (name == "default"), line  # default: nobody can log in
        assert (" >" in line or " #" in line) == (name != "default"), line


def test_only_admin_may_read_every_key(admin: Any) -> None:
    for line in admin.acl_list():
        name = line.split()[1]
        if name in ("admin", "worker") or (name == "default" and " off " in f" {line} "):  # no one logs in as it
            continue
        assert " ~* " not in f" {line} " and "%R~*" not in line and "~airship:* " not in line, line


def test_the_keys_module_and_the_acl_agree_on_the_layout() -> None:
    text = ACL.read_text()
    assert Keys().prefix == "airship"
    assert "~airship:*" in text
    sample = Keys(partitions=16)
    for key in (sample.meta("m"), sample.log("m"), sample.feed(3), sample.commands(3), sample.secret("m"),
                sample.sent("m"), sample.seen("m"), sample.view("m", "public"), sample.results("m"),
                sample.updates("m"), sample.matches(3, "open")):
        assert any(_glob(pattern, key) for pattern in re.findall(r"~([^\s)]+)", text)), key


def _glob(pattern: str, key: str) -> bool:
    return re.fullmatch(".*".join(re.escape(part) for part in pattern.split("*")), key) is not None


def test_the_k8s_dev_redis_uses_the_same_config_and_users() -> None:
    dev = ROOT / "k8s" / "components" / "redis-dev"
    assert (dev / "redis.conf").read_text() == CONF.read_text()
    assert (dev / "users.acl").read_text() == ACL.read_text()


def test_the_redis_urls_of_compose_and_k8s_dev_log_in(admin: Any) -> None:
    import redis

    files = [ROOT / "docker-compose.yml", *sorted((ROOT / "k8s").rglob("*.env"))]
    logins = {m for f in files for m in re.findall(r"redis://(\w+):([\w-]+)@", f.read_text())}
    assert {user for user, _ in logins} == {"worker", "projector", "gateway", "archiver"}
    port = admin.connection_pool.connection_kwargs["port"]
    for user, password in sorted(logins):
        client = redis.Redis(port=port, username=user, password=password)
        try:
            assert client.ping(), user
        finally:
            client.close()


def test_the_archiver_archives_as_its_own_user_and_may_not_write_to_running_matches(
        server: Server, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The real archiver code path, logged in as ``archiver``, on a finished and a running match that admin
    stored (on the ``airship`` prefix the ACL names): the finished one is archived and its keys removed,
    Redis refuses none of its commands; the running one is untouched, and what the archiver must never do
    (write logs, meta, commands, read the command streams, ...) is refused."""
    import uuid

    import redis

    from schemas.envelopes import MatchMeta
    from services.archive.archiver import ArchiveError, Archiver
    from services.archive.files import archive_path
    from services.pipeline.lobby import create_match
    from services.pipeline.redis_backend import RedisStore
    from services.replay.files import read_match
    from tests.pipeline import nim  # noqa: F401  (registers nim)

    keys = Keys(partitions=4)
    settings = Settings(key_prefix=keys.prefix, partitions=keys.partitions, archive_grace_s=0.0)
    with redis.Redis(port=server.port, username="admin", password=passwords()["admin"]) as raw:
        store = RedisStore(raw, keys, settings)
        done = create_match(store, "nim", 2, None, 5, f"arch-{uuid.uuid4().hex[:12]}")
        running = create_match(store, "nim", 2, None, 6, f"arch-{uuid.uuid4().hex[:12]}")
        assert isinstance(done, MatchMeta)
        # finish one match as the append script would (status, sets), keeping its set-up log
        raw.hset(keys.meta(done.match_id), "status", "finished")
        raw.zrem(keys.match_matches(done.match_id, "open"), done.match_id)
        raw.zadd(keys.match_matches(done.match_id, "finished"), {done.match_id: 1})
        events = store.read_log(done.match_id)
        server.admin.execute_command("ACL", "LOG", "RESET")
        root = tmp_path_factory.mktemp("archive")
        with redis.Redis(port=server.port, username="archiver", password=passwords()["archiver"]) as client:
            archiver = Archiver(client, settings, root)
            # one pass's steps for this match's partition (run_once would also archive the match `played` left)
            partition = keys.partition(done.match_id)
            assert done.match_id.encode() in client.zrange(keys.matches(partition, "finished"), 0, -1)
            assert archiver.due(partition, [done.match_id]) == [done.match_id]
            assert archiver.archive(done.match_id) is True
            assert read_match(archive_path(root, done.match_id, keys.partitions)).events == events
            assert not list(raw.scan_iter(match=f"{keys.tag(keys.partition(done.match_id))}:match:{done.match_id}:*"))
            with pytest.raises(ArchiveError, match="open, not finished"):  # the code path refuses running ones
                archiver.archive(running.match_id)
            refused = [(e["username"], e["object"]) for e in server.admin.execute_command("ACL", "LOG")]
            assert not refused, f"Redis refused the archiver: {refused}"

            mid = running.match_id
            before = {name: raw.dump(key) for name, key in [("meta", keys.meta(mid)), ("log", keys.log(mid)),
                                                           ("secret", keys.secret(mid))]}
            cmds = keys.commands(keys.partition(mid))
            for argv in [("XADD", cmds, "*", "e", "x"), ("XADD", keys.log(mid), "99-0", "e", "x"),
                         ("XTRIM", keys.log(mid), "MAXLEN", "0"), ("XDEL", keys.log(mid), "1-0"),
                         ("HSET", keys.meta(mid), "status", "finished"), ("SET", keys.secret(mid), "1"),
                         ("EXPIRE", keys.log(mid), "1"), ("XRANGE", cmds, "-", "+"), ("DEL", cmds),
                         ("UNLINK", cmds), ("UNLINK", keys.matches(keys.partition(mid), "finished")),
                         ("ZADD", keys.matches(keys.partition(mid), "finished"), "1", mid),
                         ("ZADD", keys.match_matches(mid, "running"), "1", "x"),
                         ("HSET", keys.view(mid, "public"), "v", "1"),
                         ("KEYS", "*"), ("SCAN", "0"), ("FLUSHDB",), ("CONFIG", "SET", "save", ""),
                         ("EVAL", "return redis.call('XADD', KEYS[1], '*', 'e', 'x')", "1", keys.log(mid))]:
                with pytest.raises(redis.exceptions.NoPermissionError):
                    client.execute_command(*argv)
            assert {name: raw.dump(keys.match(mid, name)) for name in before} == before
        for key in raw.scan_iter(match=f"{keys.tag(keys.partition(mid))}:match:{mid}:*"):
            raw.unlink(key)
        raw.zrem(keys.match_matches(mid, "open"), mid)


PARKED, FEED_DEAD = K.parked(P), K.feed_dead(P)


def test_the_projector_may_park_matches_and_dead_letter_feed_entries(admin: Any) -> None:
    for argv in [("HSETNX", PARKED, "m1", "{}"), ("HEXISTS", PARKED, "m1"), ("HLEN", PARKED),
                 ("XADD", FEED_DEAD, "MAXLEN", "~", "10000", "*", "e", "x"), ("MULTI",), ("EXEC",),
                 ("XPENDING", FEED, "projectors")]:
        assert allowed(admin, "projector", *argv), f"projector is refused {' '.join(argv)}"
    for argv in [("HDEL", PARKED, "m1"), ("DEL", PARKED), ("XADD", DEAD, "*", "e", "x"),
                 ("XTRIM", FEED_DEAD, "MAXLEN", "0"), ("HSETNX", META, "a", "b"), ("XADD", FEED, "*", "e", "x")]:
        assert not allowed(admin, "projector", *argv), f"projector may run {' '.join(argv)}"
    for user in ("worker", "gateway"):
        assert allowed(admin, user, "XPENDING", CMDS, "workers") == (user == "worker")
    assert {_glob(p, k) for k in (PARKED, FEED_DEAD) for p in re.findall(r"~([^\s)]+)", ACL.read_text())} >= {True}
