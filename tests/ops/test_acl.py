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
read *and* write access; so create_match.lua (run by the worker, #35) names the secret key after the meta key
instead of taking it in KEYS, and the worker holds insert-only (SETNX) write access to it; the gateway's scripts
take the match's gw hash in KEYS (the one key of a match it may write) and name the meta after it.
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
ROLES = {"default", "admin", "worker", "projector", "gateway", "keda", "exporter", "archiver", "ratings"}
K = Keys()
P = 3
CMDS, FEED, DEAD, LOG, META = K.commands(P), K.feed(P), K.dead(P), K.log("m1"), K.meta("m1")
VIEW, RESULTS, SEEN, MATCHES = K.view("m1", "public"), K.results("m1"), K.seen("m1"), K.matches(P, "open")
SECRET, SENT, UPDATES, GW = K.secret("m1"), K.sent("m1"), K.updates("m1"), K.gw("m1")
RUNNING, FINISHED = K.matches(P, "running"), K.matches(P, "finished")
SHA = "0" * 40
PNAMES, PKEYS, LINKS = K.players("names"), K.players("keys"), K.seat_players(P)
EPOCH, GAMES, RATED = K.ratings("epoch"), K.ratings("games"), K.ratings("nim:matches")
STANDINGS, HISTORY, REBUILT = K.ratings("nim:standings"), K.ratings("nim:history"), K.ratings("rebuild")
AWAIT, AQUEUE, ATICKET = K.arena("waiting"), K.arena("q:nim:2"), K.arena("t:0123")
AMINE, ACREATED = K.arena("p:ann"), K.arena("created:m1")
LREG, LMINE, LOTHER = K.limits("gateways"), K.limits("gw:g1"), K.limits("gw:g2")
LBUCKET = K.limits("rate:token_rate:00ff")
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
    limits: list[str]  # the gateway's shared-limits keys while it ran
    rated: str = ""  # the rated match (two registered players)
    arena: dict[str, Any] | None = None  # the summary of the arena's match of two more players (not played)
    ladder: list[dict[str, Any]] | None = None  # GET /ladder/nim once the ratings projector rated it
    forged: dict[str, Any] | None = None  # what forge_player_key found
    refused: list[Any] | None = None  # the ACL log once the processes played (before forge_player_key)


def play_nim(url: str) -> tuple[str, int]:
    """Create a two-seat nim match, join both seats and play it to the end, over HTTP only."""
    with httpx.Client(base_url=url, timeout=30.0) as http:
        match_id, _, moves = nim_http.play_nim(http)
    return match_id, moves


def play_rated(url: str) -> tuple[str, list[dict[str, Any]]]:
    """Register two players (one with ``airship players register``, one over HTTP), create a rated nim match
    for them, join each seat with its player's API key, play it to the end and wait for its ladder."""
    import sys

    from services.ratings.players import API_KEY_HEADER
    from tests.pipeline.redis_fixtures import wait_until

    cli = subprocess.run([sys.executable, "-m", "services.cli", "players", "register", "ann", "--url", url],
                         capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert cli.returncode == 0, cli.stderr
    keys = {"ann": cli.stdout.strip()}
    assert keys["ann"].startswith("ak_") and "shown only this once" in cli.stderr
    again = subprocess.run([sys.executable, "-m", "services.cli", "players", "register", "ann", "--url", url],
                           capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert again.returncode == 2 and "taken" in again.stderr and not again.stdout
    with httpx.Client(base_url=url, timeout=30.0) as http:
        answer = http.post("/players", json={"name": "bob"})
        assert answer.status_code == 201, answer.text
        keys["bob"] = answer.json()["api_key"]
        created = http.post("/ladder/nim/matches", json={"players": ["ann", "bob"]},
                            headers={API_KEY_HEADER: keys["ann"]})
        assert created.status_code == 201, created.text
        match_id, version = created.json()["match_id"], created.json()["version"]
        tokens = {}
        for seat, name in enumerate(("ann", "bob")):
            joined = http.post(f"/matches/{match_id}/seats", json={"seat": seat}, headers={API_KEY_HEADER: keys[name]})
            assert joined.status_code == 201, joined.text
            tokens[seat] = joined.json()["token"]
        for move in range(100):
            public = nim_http.get_json(http, f"/matches/{match_id}/views/public", after_version=version - 1,
                                       wait_s=10)["view"]
            if public["finished"]:
                break
            seat = public["to_act"][0]
            mine = nim_http.get_json(http, f"/matches/{match_id}/views/me", tokens[seat], after_version=version - 1,
                                     wait_s=10)
            sent = http.post(f"/matches/{match_id}/commands", params={"wait_s": 10},
                             headers={"Authorization": f"Bearer {tokens[seat]}"},
                             json={"idempotency_key": f"rated-{move}", "type": mine["legal"][0]["type"],
                                   "body": mine["legal"][0]["body"], "expected_version": mine["version"]})
            assert sent.status_code == 200 and sent.json()["status"] == "accepted", sent.text
            version = sent.json()["version"]
        standings: list[dict[str, Any]] = []

        def rated() -> bool:
            standings[:] = nim_http.get_json(http, "/ladder/nim")["standings"]
            return len(standings) == 2

        wait_until(rated, timeout_s=30)
    return match_id, standings


def forge_player_key(server: Server, url: str) -> dict[str, Any]:
    """#35, the red team's players attack replayed with the gateway's password: make a key of one's own work as
    the registered player ``ann``. Overwriting an existing key's entry is refused (HSET); adding a new key -> ann
    entry is allowed (HSETNX, which registration needs) but opens nothing: ann's record names another key, so the
    real gateway answers 401 to the forged key."""
    import redis

    from services.ratings.players import API_KEY_HEADER, key_hash, new_api_key

    forged, outcome = new_api_key(), {}
    with server.login("gateway") as gateway:
        existing = server.admin.hkeys(KP.players("keys"))
        try:
            gateway.hset(KP.players("keys"), existing[0], "bob")  # ann's key made bob's
            outcome["overwrite"] = "allowed"
        except redis.exceptions.NoPermissionError:
            outcome["overwrite"] = "refused"
        try:
            gateway.hset(KP.players("names"), "ann", "x")
            outcome["record"] = "allowed"
        except redis.exceptions.NoPermissionError:
            outcome["record"] = "refused"
        outcome["added"] = gateway.hsetnx(KP.players("keys"), key_hash(forged), "ann")
    with httpx.Client(base_url=url, timeout=30.0) as http:
        answer = http.post("/ladder/nim/matches", json={"players": ["ann", "bob"]}, headers={API_KEY_HEADER: forged})
        outcome["status"] = answer.status_code
    return outcome


def play_arena(url: str) -> dict[str, Any]:
    """Two more players queue in the arena for nim (services.gateway.arena: its scripts on the {arena} keys), are
    paired into a rated match and collect their seats' tokens; the match's summary once both seats are taken."""
    from services.ratings.players import API_KEY_HEADER

    with httpx.Client(base_url=url, timeout=30.0) as http:
        keys = {name: http.post("/players", json={"name": name}).json()["api_key"] for name in ("cat", "dan")}
        first = http.post("/arena/nim/queue", json={"seats": [2]}, headers={API_KEY_HEADER: keys["cat"]})
        assert first.status_code == 201 and first.json()["status"] == "waiting", first.text
        assert http.get("/arena/nim").json()["queues"][0] == {"seats": 2, "waiting": 1}
        second = http.post("/arena/nim/queue", json={}, headers={API_KEY_HEADER: keys["dan"]})
        assert second.status_code == 201 and second.json()["status"] == "matched", second.text
        collected = http.get(first.json()["location"], params={"wait_s": 5}, headers={API_KEY_HEADER: keys["cat"]})
        assert collected.status_code == 200 and collected.json()["token"], collected.text
        match_id = second.json()["match_id"]
        assert collected.json()["match_id"] == match_id
        left = http.post("/arena/nim/queue", json={"seats": [2]}, headers={API_KEY_HEADER: keys["dan"]}).json()
        assert http.delete(left["location"], headers={API_KEY_HEADER: keys["dan"]}).status_code == 204
        return dict(nim_http.get_json(http, f"/matches/{match_id}"))


@pytest.fixture(scope="module")
def played(server: Server) -> Played:
    """A worker, a projector, the ratings projector and the gateway as real processes, each logged in as its own
    Redis user, play a match of nim through the gateway to the end, then a rated one between two players they
    register, which the ratings projector puts on the ladder; the processes are stopped before the tests look
    at Redis."""
    from tests.gateway.stack import spawn_gateway, wait_ready
    from tests.pipeline.redis_fixtures import spawn, stop
    from tests.ratings.conftest import spawn_ratings

    def settings(user: str) -> Settings:
        return Settings(redis_url=server.url(user), key_prefix=KP.prefix, partitions=KP.partitions, block_ms=50,
                        claim_every_s=0.5)

    server.admin.execute_command("ACL", "LOG", "RESET")
    off = {"AIRSHIP_HEALTH_PORT": "0", "AIRSHIP_METRICS_PORT": "0"}
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    procs = [spawn(settings("worker"), "worker", **off), spawn(settings("projector"), "projector", **off),
             spawn_ratings(settings("ratings"), **off), spawn_gateway(settings("gateway"), port, **off)]
    try:
        wait_ready(url, procs[-1])
        match_id, moves = play_nim(url)
        early = set(server.admin.keys(KP.limits("*")))  # the seats' token buckets lapse once idle: read them now
        with httpx.Client(base_url=url, timeout=10.0) as http:
            summary = nim_http.get_json(http, f"/matches/{match_id}")
            log = nim_http.get_json(http, f"/matches/{match_id}/log")
        rated, ladder = play_rated(url)
        arena = play_arena(url)
        refused = [(e["username"], e["object"], e["reason"]) for e in server.admin.execute_command("ACL", "LOG")]
        forged = forge_player_key(server, url)  # (its refusals are expected: the log was read before it)
        server.admin.execute_command("ACL", "LOG", "RESET")
        users = {c["user"] for c in server.admin.client_list()}
        limits = sorted(early | set(server.admin.keys(KP.limits("*"))))
    finally:
        for proc in procs:
            stop(proc)
    return Played(match_id, moves, summary, log, users, limits, rated, ladder=ladder, arena=arena, forged=forged,
                  refused=refused)


def test_worker_projector_and_gateway_play_a_match_as_their_own_users(server: Server, played: Played) -> None:
    assert played.summary["status"] == "finished" and played.moves >= 3
    assert played.log["perspective"] == "full" and len(played.log["events"]) == played.summary["version"]
    assert played.users == {"admin", "worker", "projector", "gateway", "ratings"}
    assert not played.refused, f"Redis refused the real processes: {played.refused}"
    refused = [(e["username"], e["object"], e["reason"]) for e in server.admin.execute_command("ACL", "LOG")]
    assert not refused, f"Redis refused the real processes: {refused}"


def test_the_gateway_password_cannot_make_its_key_any_players(played: Played) -> None:
    """#35: with the gateway's password an existing key's entry cannot be overwritten nor a player's record
    replaced; the entry it may add (insert-only, as registration does) does not authenticate at the real gateway."""
    assert played.forged is not None
    assert played.forged["overwrite"] == "refused" and played.forged["record"] == "refused"
    assert played.forged["added"] and played.forged["status"] == 401, played.forged


def test_the_gateway_shares_its_limits_as_its_own_user(server: Server, played: Played) -> None:
    """The gateway that played the match above flushed its limits to Redis as ``gateway`` (the ACL log stayed
    empty: the first test): its registry entry and the token buckets of the seats and the address are there."""
    assert KP.limits("gateways") in played.limits, played.limits
    assert any(k.startswith(KP.limits("rate:address_rate:")) for k in played.limits), played.limits
    assert any(k.startswith(KP.limits("rate:token_rate:")) for k in played.limits), played.limits


def test_the_shared_limits_code_path_runs_as_the_gateway_user(server: Server) -> None:
    """services.gateway.shared_limits logged in as ``gateway``, two instances: a rate, held counts, a slot given
    back, the close that takes their counts out: Redis refuses nothing, and the gateway user still reaches no
    other key through these permissions."""
    import asyncio

    import redis
    import redis.asyncio as aioredis

    from services.gateway.shared_limits import Limit, SharedLimits

    rate, slots = Limit("token_rate", 4, 0.5), Limit("address_sockets", 2)

    async def run() -> None:
        clients = [aioredis.Redis(port=server.port, username="gateway", password=passwords()["gateway"])
                   for _ in range(2)]
        a, b = (SharedLimits(c, KP.prefix, f"acl-{i}", ttl_s=1.0, idle_s=0.1) for i, c in enumerate(clients))
        await a.start()
        await b.start()
        try:
            assert [await a.take(rate, "t") for _ in range(4)] == [0.0] * 4 and await b.take(rate, "t") > 0
            assert await a.acquire(slots, "x") and await b.acquire(slots, "x") and not await a.acquire(slots, "x")
            a.release(slots, "x")
            await asyncio.sleep(0.4)  # given back
            assert await b.acquire(slots, "x")
            assert not (a.failing or b.failing) and a.flushes and b.flushes
        finally:
            await a.close()
            await b.close()
            for c in clients:
                await c.aclose()

    server.admin.execute_command("ACL", "LOG", "RESET")
    asyncio.run(run())
    refused = [(e["username"], e["object"], e["reason"]) for e in server.admin.execute_command("ACL", "LOG")]
    assert not refused, f"Redis refused the shared limits: {refused}"
    assert not server.admin.exists(KP.limits("gw:acl-0"), KP.limits("gw:acl-1"))  # closed: taken out
    with server.login("gateway") as gateway:
        for argv in [("DEL", KP.log("m1")), ("HDEL", KP.meta("m1"), "status"),
                     ("ZREMRANGEBYSCORE", KP.matches(0, "running"), "-inf", "+inf"), ("PEXPIRE", KP.log("m1"), "1"),
                     ("KEYS", KP.limits("*")), ("FLUSHDB",)]:
            with pytest.raises(redis.exceptions.NoPermissionError):
                gateway.execute_command(*argv)


def test_the_arena_pairs_players_as_the_gateway_user(server: Server, played: Played) -> None:
    """The arena's queue, pairing, match creation and seat claims ran as ``gateway`` (no refusal in the ACL log,
    checked by the test above): the match is running with both seats taken."""
    assert played.arena is not None and played.arena["status"] == "running" and played.arena["seats_free"] == []


def test_players_register_and_a_rated_match_reaches_the_ladder_as_the_ratings_user(server: Server,
                                                                                   played: Played) -> None:
    """The rated match of ``played``: the ladder the ratings projector (user ``ratings``) published holds both
    players; a rebuild run as ``ratings`` gives the same; the gateway's links are where the ratings user reads
    them; Redis refused nothing."""
    import redis

    from services.ratings.rebuild import rebuild
    from services.ratings.store import RatingsStore

    assert played.ladder is not None and {row["player"] for row in played.ladder} == {"ann", "bob"}
    assert [row["games"] for row in played.ladder] == [1, 1]
    server.admin.execute_command("ACL", "LOG", "RESET")
    with redis.Redis(port=server.port, username="ratings", password=passwords()["ratings"]) as client:
        store = RatingsStore(client, KP)
        live = store.snapshot()
        assert [m["m"] for m in live["nim"]["matches"]] == [played.rated]
        report = rebuild(client, KP)
        assert report.games == {"nim": 1} and store.snapshot() == live
        assert store.last_rebuild()["matches"] == 1
        refused = [(e["username"], e["object"], e["reason"]) for e in server.admin.execute_command("ACL", "LOG")]
        assert not refused, f"Redis refused the ratings user: {refused}"
        with pytest.raises(redis.exceptions.NoPermissionError):  # its own keys only
            client.hset(KP.seat_players(KP.partition(played.rated)), "x", "y")


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
        with pytest.raises(redis.exceptions.NoPermissionError):  # workers draw and write the seeds (#35)
            gateway.setnx(secret, "1")
        # A script runs with the caller's permissions, whether it names the key or builds its name.
        for script, key in [("return redis.call('GET', ARGV[1])", secret),  # a command it may not run
                            ("return redis.call('HGET', ARGV[1], 'x')", secret),  # a key it may not read
                            ("return redis.call('XRANGE', ARGV[1], '-', '+')", KP.commands(KP.partition(mid))),
                            ("return redis.call('XTRIM', ARGV[1], 'MAXLEN', 0)", KP.commands(KP.partition(mid)))]:
            with pytest.raises(redis.exceptions.ResponseError,
                               match=r"user executing the script can't|ACL failure in script"):
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
                ("XTRIM", "{updates}", "MAXLEN", "0"), ("DEL", "{updates}"), ("HSET", "{updates}", "k", "v"),
                ("EXPIRE", "{log}", "1"), ("KEYS", "*"),
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
        # match.purge (lua/purge.lua): the archiver's user deletes nothing, the worker removes an archived match
        ("EVALSHA", SHA, "3", META, LOG, FINISHED), ("UNLINK", LOG), ("UNLINK", META), ("UNLINK", SECRET),
        ("UNLINK", VIEW), ("UNLINK", UPDATES), ("ZREM", FINISHED, "m1"), ("ZREM", MATCHES, "m1"),
        ("ZSCORE", MATCHES, "m1"), ("ZREM", K.archive_pending(P), "m1"),
        # match.create (create_match.lua) and match.join (join.lua), decided by workers (#35)
        ("EVALSHA", SHA, "4", META, LOG, FEED, MATCHES), ("SETNX", SECRET, "42"), ("ZADD", MATCHES, "1", "m1"),
        ("EVALSHA", SHA, "5", META, MATCHES, RUNNING, FINISHED, LINKS), ("HSETNX", META, "cred:0", "h"),
        ("HINCRBY", META, "joined", "1"), ("HEXISTS", GW, "arena_dissolved"), ("HEXISTS", LINKS, "m1.p.ann"),
        ("HSET", LINKS, "m1.0", "ann", "m1.p.ann", "0", "m1.created", "1"),
        ("XADD", UPDATES, "MAXLEN", "~", "100", "*", "k", "public,0,1", "v", "3"),  # the match began
        ("UNLINK", GW),
    ],
    "projector": [
        ("XREADGROUP", "GROUP", "projectors", "p1", "STREAMS", FEED, ">"), ("XACK", FEED, "projectors", "1-0"),
        ("XAUTOCLAIM", FEED, "projectors", "p1", "30000", "0-0"), ("XINFO", "GROUPS", FEED),
        ("XGROUP", "CREATE", FEED, "projectors", "0", "MKSTREAM"), ("XGROUP", "DELCONSUMER", FEED, "projectors", "p1"),
        ("XGROUP", "CREATE", CMDS, "workers", "0", "MKSTREAM"),  # every process makes sure the groups exist
        ("XRANGE", LOG, "-", "+"), ("HGETALL", META),
        ("EVALSHA", SHA, "3", VIEW, UPDATES, K.live(P)), ("HSET", VIEW, "v", "3", "d", "x"),
        ("XADD", UPDATES, "MAXLEN", "~", "1000", "*", "k", "public", "v", "3"),
    ],
    "gateway": [
        ("HGETALL", META), ("HGET", META, "version"), ("ZREVRANGE", MATCHES, "0", "49", "WITHSCORES"),
        ("ZCARD", MATCHES),  # the bound on open matches (AIRSHIP_MAX_OPEN_MATCHES)
        ("XADD", CMDS, "*", "e", "x"), ("HSET", SENT, "0.k1", "1"), ("HEXISTS", SENT, "0.k1"), ("HGET", SEEN, "0.k1"),
        ("XREVRANGE", RESULTS, "+", "-", "COUNT", "1"),
        ("XREAD", "BLOCK", "100", "STREAMS", RESULTS, UPDATES, "0", "0"),
        ("HGET", VIEW, "d"), ("XRANGE", LOG, "1-0", "+"),
        # its scripts take the match's gw hash in KEYS (publish.lua; flag_bots.lua with the bots-wanted set; the
        # abandoned flag; the arena's DISSOLVE) and run, on its own permissions:
        ("EVALSHA", SHA, "1", GW), ("EVAL", "return 1", "1", GW), ("EVALSHA", SHA, "2", GW, K.bots_wanted(P)),
        ("SCRIPT", "LOAD", "return 1"), ("EXISTS", META), ("HSET", GW, "abandon:0", "3:1"),
        ("HSET", GW, "bot:1", "heuristic"), ("HSET", GW, "abandoned", "1"), ("HGETALL", GW),
        ("HSETNX", GW, "rematch", "m2"),
        ("ZADD", K.bots_wanted(P), "1", "m1"), ("ZREM", K.bots_wanted(P), "m1"), ("ZADD", MATCHES, "XX", "1", "m1"),
        ("PING",),
        # players and the ladder (services/gateway/players.py): register (a script on both player hashes), a
        # key's player, the rated match's players, the standings and a history
        ("EVALSHA", SHA, "2", PNAMES, PKEYS), ("HSETNX", PNAMES, "ann", "r"), ("HSETNX", PKEYS, "h", "ann"),
        ("HEXISTS", PKEYS, "h"), ("HGET", PNAMES, "ann"),
        ("HGET", PKEYS, "h"), ("HMGET", PNAMES, "ann", "bob"), ("HMGET", LINKS, "m1.0", "m1.1", "m1.created"),
        ("GET", STANDINGS), ("HGET", HISTORY, "ann"),
        # the arena (services.ratings.pairing): its scripts on the {arena} keys, and the match's creation flag
        ("EVALSHA", SHA, "1", AWAIT), ("ZRANGEBYSCORE", AWAIT, "-inf", "(1", "LIMIT", "0", "100"),
        ("ZCARD", AMINE), ("ZADD", AQUEUE, "1", "t"), ("ZREM", AQUEUE, "t"), ("ZRANGE", AQUEUE, "0", "199"),
        ("HSET", ATICKET, "state", "matched"), ("HMGET", ATICKET, "player", "deadline"), ("HGET", ATICKET, "seats"),
        ("PEXPIRE", ATICKET, "3600000"), ("DEL", ATICKET), ("EXISTS", ACREATED),
        ("SET", ACREATED, "1", "PX", "3600000"),
        # the shared limits (services.gateway.shared_limits, lua/limits.lua), and its close
        ("EVALSHA", SHA, "3", LREG, LMINE, LBUCKET), ("TIME",), ("ZREMRANGEBYSCORE", LREG, "-inf", "1"),
        ("ZADD", LREG, "1", "g1"), ("EXISTS", LMINE), ("ZRANGE", LREG, "0", "-1"), ("HMGET", LOTHER, "f1", "f2"),
        ("HSET", LMINE, "f1", "2"), ("HDEL", LMINE, "f1"), ("PEXPIRE", LMINE, "3000"), ("HMGET", LBUCKET, "l", "t"),
        ("HSET", LBUCKET, "l", "1.5", "t", "1"), ("PEXPIRE", LBUCKET, "1000"), ("DEL", LBUCKET),
        ("ZREM", LREG, "g1"), ("DEL", LMINE),
    ],
    "ratings": [
        ("XREADGROUP", "GROUP", "ratings", "r1", "COUNT", "200", "BLOCK", "1000", "STREAMS", FEED, ">"),
        ("XACK", FEED, "ratings", "1-0"), ("XAUTOCLAIM", FEED, "ratings", "r1", "30000", "0-0"),
        ("XPENDING", FEED, "ratings"), ("XPENDING", FEED, "ratings", "-", "+", "10", "r1"),
        ("XINFO", "GROUPS", FEED), ("XLEN", FEED), ("XRANGE", FEED, "(1-0", "+"),
        ("XGROUP", "CREATE", FEED, "ratings", "0", "MKSTREAM"), ("XGROUP", "DELCONSUMER", FEED, "ratings", "r1"),
        ("HGET", META, "status"), ("HGETALL", META), ("XRANGE", LOG, "1-0", "+", "COUNT", "1000"),
        ("ZRANGE", FINISHED, "0", "999"), ("HMGET", LINKS, "m1.0", "m1.1", "m1.created"),
        ("HEXISTS", LINKS, "m1.created"),
        ("HSETNX", RATED, "m1", "x"), ("SADD", GAMES, "nim"), ("HGETALL", RATED), ("SMEMBERS", GAMES),
        ("GET", EPOCH), ("EVALSHA", SHA, "4", EPOCH, RATED, STANDINGS, HISTORY), ("SET", STANDINGS, "x"),
        ("HSET", HISTORY, "ann", "x"), ("HDEL", HISTORY, "ann"), ("HLEN", RATED), ("GET", STANDINGS),
        ("HGET", HISTORY, "ann"), ("HSET", REBUILT, "seconds", "1"), ("HGETALL", REBUILT),
        ("INCRBY", EPOCH, "1"), ("DEL", GAMES, RATED, STANDINGS, HISTORY),  # airship ratings rebuild
        ("SCRIPT", "LOAD", "return 1"), ("PING",),
    ],
    "archiver": [("HMGET", LINKS, "m1.0", "m1.1", "m1.created"),  # the links go into the archive header
                 ("HGETALL", META), ("XRANGE", LOG, "1-0", "+", "COUNT", "1000"), ("GET", SECRET),
                 ("ZRANGE", FINISHED, "0", "499"), ("ZSCORE", K.archive_pending(P), "m1"),
                 ("ZADD", K.archive_pending(P), "NX", "1", "m1"), ("XREVRANGE", RESULTS, "+", "-", "COUNT", "1"),
                 ("ZRANGEBYSCORE", MATCHES, "-inf", "(1", "LIMIT", "0", "500"), ("EXISTS", META),
                 ("HGET", SEEN, "expire-v3"), ("XADD", CMDS, "*", "e", "x")],  # its system commands
    "keda": [("XINFO", "GROUPS", CMDS), ("XPENDING", CMDS, "workers"), ("XLEN", CMDS)],
    # what oliver006/redis_exporter runs with REDIS_EXPORTER_CONFIG_COMMAND=- (docker-compose.yml): INFO, the slow log,
    # latency, its client name; no CONFIG GET, no CLIENT LIST
    "exporter": [("INFO",), ("INFO", "ALL"), ("PING",), ("DBSIZE",), ("SLOWLOG", "GET", "10"), ("SLOWLOG", "LEN"),
                 ("LATENCY", "LATEST"), ("LATENCY", "HISTOGRAM"), ("CLIENT", "SETNAME", "redis_exporter")],
    # `default` is off (nobody logs in as it) with every permission, for the AOF replay: see
    # tests/ops/test_redis_durability.py, which also checks that no one can act as it.
}

DENIED: dict[str, list[tuple[str, ...]]] = {
    "worker": [("FLUSHALL",), ("DEL", LOG), ("KEYS", "*"), ("CONFIG", "SET", "save", ""), ("GET", "other:key"),
               # #35: no SET or EXPIRE of any key (EXPIRE: a finished match's results and sent ids only), no player
               # keys (it minted an API key), no ladder, arena or limits, no views, no seed written
               ("SET", "airship:x", "1"), ("SET", META, "1"), ("EXPIRE", META, "1"), ("EXPIRE", LOG, "1"),
               ("PEXPIRE", SEEN, "1"), ("EXPIRE", "airship:x", "1"), ("HSET", PKEYS, "h", "ann"),
               ("HSETNX", PKEYS, "h", "ann"), ("HSET", PNAMES, "eve", "r"), ("HGET", PKEYS, "h"),
               ("SET", STANDINGS, "x"), ("HSET", HISTORY, "ann", "x"), ("GET", STANDINGS), ("INCRBY", EPOCH, "1"),
               ("ZADD", AQUEUE, "1", "t"), ("HSET", ATICKET, "state", "x"), ("HSET", LBUCKET, "l", "1"),
               ("HSET", VIEW, "v", "1"), ("SET", SECRET, "1"), ("HSET", GW, "abandoned", "1"),
               ("EVALSHA", SHA, "1", PKEYS), ("EVAL", "return 1", "1", STANDINGS),
               ("ACL", "LIST"),
               # it may UNLINK match keys (match.purge), nothing else: no DEL, no other key, no set beyond its own
               ("DEL", META), ("UNLINK", PKEYS), ("UNLINK", STANDINGS), ("UNLINK", CMDS), ("UNLINK", LINKS),
               ("ZADD", K.archive_pending(P), "1", "m1"), ("HSET", SECRET, "a", "b"),
               ("EVALSHA", SHA, "4", META, LOG, FINISHED, SECRET)],
    "projector": [("FLUSHDB",), ("DEL", VIEW), ("XGROUP", "DESTROY", FEED, "projectors"), ("HSET", META, "a", "b"),
                  # #35: a meta is read only (put_views.lua names it after the updates stream), no key beyond views
                  ("HSET", META, "status", "finished"), ("EVALSHA", SHA, "3", VIEW, META, UPDATES),
                  ("HSETNX", META, "cred:0", "h"), ("HDEL", META, "cred:0"), ("EXPIRE", VIEW, "1"),
                  ("XTRIM", UPDATES, "MAXLEN", "0"), ("XDEL", UPDATES, "1-0"), ("DEL", UPDATES),
                  ("HSET", PKEYS, "h", "a"), ("SET", STANDINGS, "x"),
                  ("XADD", CMDS, "*", "k", "v"), ("XADD", LOG, "9-0", "k", "v"), ("XADD", FEED, "*", "k", "v"),
                  ("HSET", SEEN, "c", "r"), ("XADD", RESULTS, "*", "r", "x"), ("GET", SECRET),
                  ("XRANGE", CMDS, "-", "+"), ("XREADGROUP", "GROUP", "workers", "x", "STREAMS", CMDS, ">"),
                  ("EVALSHA", SHA, "1", SECRET), ("SET", VIEW, "v")],
    "gateway": [("GET", SECRET), ("SET", SECRET, "1"), ("SET", SECRET, "1", "GET"), ("EVALSHA", SHA, "1", SECRET),
                # #35: matches are created and seats taken by workers: no meta, log, feed, seed, credential, status
                # set or seat link written; no announcement of views; its scripts cannot name a meta in KEYS
                ("SETNX", SECRET, "42"), ("HSET", META, "a", "b"), ("HSETNX", META, "cred:0", "h"),
                ("HINCRBY", META, "joined", "1"), ("XADD", LOG, "1-0", "e", "x"), ("ZADD", RUNNING, "1", "m1"),
                ("ZREM", MATCHES, "m1"), ("XADD", FEED, "MAXLEN", "~", "100000", "*", "e", "x"),
                ("HSET", LINKS, "m1.0", "ann"), ("XADD", UPDATES, "*", "k", "public", "v", "3"),
                ("XADD", K.live(P), "*", "m", "m1", "k", "public", "v", "3"),
                ("EVALSHA", SHA, "4", META, LOG, FEED, MATCHES), ("EVALSHA", SHA, "1", META),
                # #35: players and their keys are insert-only: no key overwritten (its own key made any player's),
                # no record replaced, nothing deleted
                ("HSET", PKEYS, "h", "ann"), ("HSET", PNAMES, "ann", "r"), ("HDEL", PNAMES, "ann"), ("DEL", PKEYS),
                ("HINCRBY", PNAMES, "ann", "1"), ("EXPIRE", PKEYS, "1"), ("RENAME", PKEYS, PNAMES),
                ("EVAL", "return 1", "5", META, LOG, FEED, MATCHES, SECRET),
                ("XTRIM", CMDS, "MAXLEN", "0"), ("XDEL", CMDS, "1-0"), ("DEL", CMDS), ("UNLINK", LOG), ("DEL", SECRET),
                ("FLUSHALL",), ("FLUSHDB",), ("XGROUP", "DESTROY", CMDS, "workers"),
                ("XGROUP", "CREATE", CMDS, "x", "$"),
                ("XREADGROUP", "GROUP", "workers", "x", "STREAMS", CMDS, ">"), ("XACK", CMDS, "workers", "1-0"),
                ("XRANGE", CMDS, "-", "+"), ("XREAD", "STREAMS", CMDS, "0"), ("HSET", VIEW, "v", "1"),
                ("XTRIM", UPDATES, "MAXLEN", "0"), ("DEL", UPDATES), ("HSET", UPDATES, "k", "v"),
                ("EVALSHA", SHA, "1", UPDATES),  # it may add to a match's updates stream, in a script only by name
                ("XADD", RESULTS, "*", "r", "x"), ("HSET", SEEN, "c", "r"),
                ("XADD", DEAD, "*", "k", "v"), ("EXPIRE", LOG, "1"), ("KEYS", "*"), ("SCAN", "0"),
                ("XREADGROUP", "GROUP", "projectors", "x", "STREAMS", FEED, ">"),
                ("CONFIG", "SET", "save", ""), ("ACL", "LIST"), ("SCRIPT", "FLUSH"), ("GET", "other:key"),
                # the ladder is the ratings projector's: read only; players and links are never deleted
                ("SET", STANDINGS, "x"), ("HSET", HISTORY, "ann", "x"), ("HSETNX", RATED, "m1", "x"),
                ("INCRBY", EPOCH, "1"), ("DEL", STANDINGS), ("EVALSHA", SHA, "1", STANDINGS), ("DEL", PNAMES),
                ("HDEL", PKEYS, "h"), ("HDEL", LINKS, "m1.0"), ("UNLINK", LINKS),
                # the arena's extra commands reach its own keys only
                ("ZRANGE", FINISHED, "0", "-1"), ("ZRANGEBYSCORE", MATCHES, "-inf", "+inf"), ("PEXPIRE", META, "1"),
                ("SET", EPOCH, "1"), ("DEL", FEED), ("EVALSHA", SHA, "2", AWAIT, SECRET),
                # the limits' permissions reach the {limits} keys only
                ("HDEL", META, "cred:0"), ("ZREMRANGEBYSCORE", RUNNING, "-inf", "+inf"), ("PEXPIRE", LOG, "1"),
                ("DEL", MATCHES), ("HDEL", PKEYS, "h"), ("EVALSHA", SHA, "2", LREG, SECRET),
                ("ZRANGE", RUNNING, "0", "-1"), ("HMGET", SECRET, "l")],
    "ratings": [("XADD", FEED, "*", "e", "x"), ("XTRIM", FEED, "MAXLEN", "0"), ("DEL", FEED), ("XDEL", FEED, "1-0"),
                ("XGROUP", "DESTROY", FEED, "ratings"), ("XGROUP", "SETID", FEED, "ratings", "0"),
                ("XREADGROUP", "GROUP", "workers", "x", "STREAMS", CMDS, ">"), ("XRANGE", CMDS, "-", "+"),
                ("HSET", META, "status", "finished"), ("DEL", META), ("XADD", LOG, "9-0", "e", "x"),
                ("HSET", LINKS, "m1.0", "eve"), ("HDEL", LINKS, "m1.0"), ("DEL", LINKS),
                ("ZADD", FINISHED, "1", "m1"), ("ZREM", FINISHED, "m1"), ("GET", SECRET), ("HSET", VIEW, "v", "1"),
                ("HGET", VIEW, "d"), ("HGET", PKEYS, "h"), ("HSET", PKEYS, "h", "eve"), ("HGETALL", PNAMES),
                ("EVALSHA", SHA, "1", META), ("EVALSHA", SHA, "1", LINKS), ("EVAL", "return 1", "1", FEED),
                ("XADD", UPDATES, "*", "k", "v"), ("FLUSHDB",), ("KEYS", "*"), ("SCAN", "0"), ("ACL", "LIST"),
                ("GET", "other:key"), ("CONFIG", "SET", "save", ""), ("HGETALL", ATICKET), ("ZCARD", AWAIT)],
    "archiver": [("HSET", LINKS, "m1.0", "eve"), ("HDEL", LINKS, "m1.0"), ("DEL", LINKS), ("GET", RATED),
                 ("HGET", PKEYS, "h"),
                 # #35: it deletes nothing (a worker decides its match.purge): no match key, no set entry, no script
                 ("UNLINK", LOG), ("UNLINK", META), ("DEL", LOG), ("UNLINK", SECRET), ("UNLINK", VIEW),
                 ("ZREM", FINISHED, "m1"), ("ZREM", MATCHES, "m1"), ("ZREM", K.archive_pending(P), "m1"),
                 ("EVALSHA", SHA, "2", META, LOG), ("EVAL", "return 1", "1", META), ("SCRIPT", "LOAD", "return 1"),
                 ("HSET", META, "status", "finished"), ("XADD", LOG, "9-0", "e", "x"), ("ZADD", FINISHED, "1", "m1")],
    "keda": [("XADD", CMDS, "*", "k", "v"), ("XRANGE", CMDS, "-", "+"), ("GET", VIEW), ("XINFO", "GROUPS", FEED),
             ("HGETALL", META), ("XTRIM", CMDS, "MAXLEN", "0")],
    "exporter": [("CONFIG", "GET", "*"), ("CONFIG", "GET", "dir"), ("CONFIG", "GET", "maxmemory"),  # #35: no config
                 ("CLIENT", "LIST"), ("CLIENT", "INFO"), ("CLIENT", "KILL", "ID", "1"), ("MONITOR",),  # nor clients
                 ("GET", VIEW), ("XRANGE", LOG, "-", "+"), ("CONFIG", "SET", "save", ""), ("GET", SECRET),
                 ("HGETALL", META), ("SCAN", "0")],
}

# Redis ACLs know commands and keys, not arguments: whoever may XADD to a stream may pass MAXLEN/MINID and
# trim it. The gateway must XADD to the command streams (since #35 to nothing else of a match).
NOT_ENFORCEABLE = [("gateway", ("XADD", CMDS, "MAXLEN", "0", "*", "e", "x")),
                   # the projector announces views: it may trim a match's updates stream (#35, docs/operations.md)
                   ("projector", ("XADD", UPDATES, "MAXLEN", "0", "*", "k", "public", "v", "1")),
                   # nor a consumer group: whoever reads the feed in its group may read it in another's
                   ("ratings", ("XREADGROUP", "GROUP", "projectors", "x", "STREAMS", FEED, ">"))]


@pytest.mark.parametrize(("user", "argv"), [(u, a) for u, cmds in ALLOWED.items() for a in cmds])
def test_each_role_may_run_what_it_needs(admin: Any, user: str, argv: tuple[str, ...]) -> None:
    assert allowed(admin, user, *argv), f"{user} is refused {' '.join(argv)}"


@pytest.mark.parametrize(("user", "argv"), [(u, a) for u, cmds in DENIED.items() for a in cmds])
def test_each_role_is_refused_what_it_does_not_need(admin: Any, user: str, argv: tuple[str, ...]) -> None:
    assert not allowed(admin, user, *argv), f"{user} may run {' '.join(argv)}"


# #35, the red team's findings with each role's password, replayed with ACL DRYRUN. Closed: refused (the worker's, the
# projector's meta, the exporter's, the players' keys, the archiver's UNLINK of a running match's log (it publishes
# match.purge, which a worker decides), the gateway's writes of logs, metas, credentials, feeds and view announcements
# (matches are created and seats taken by match.create and match.join, which workers decide): also in DENIED and for
# real below.
FINDINGS_CLOSED = [("worker", ("SET", META, "x")), ("worker", ("EXPIRE", LOG, "1")),
                   ("worker", ("HSET", PKEYS, "h", "a")), ("worker", ("HSETNX", PKEYS, "h", "a")),
                   ("worker", ("SET", STANDINGS, "x")),
                   ("gateway", ("HSET", PKEYS, "h", "ann")), ("projector", ("HSET", META, "status", "finished")),
                   ("exporter", ("CONFIG", "GET", "*")), ("exporter", ("CLIENT", "LIST")),
                   ("archiver", ("UNLINK", LOG)),
                   # the gateway's, closed by match.create and match.join (decided by workers)
                   ("gateway", ("XADD", LOG, "99-0", "e", "forged")), ("gateway", ("HSET", META, "cred:0", "h")),
                   ("gateway", ("HSET", META, "status", "finished")), ("gateway", ("XADD", FEED, "*", "e", "forged")),
                   ("gateway", ("XADD", K.live(P), "*", "m", "m1", "k", "public", "v", "1"))]


@pytest.mark.parametrize(("user", "argv"), FINDINGS_CLOSED)
def test_the_red_team_findings_are_refused(admin: Any, user: str, argv: tuple[str, ...]) -> None:
    assert not allowed(admin, user, *argv), f"{user} may run {' '.join(argv)}"


@pytest.mark.parametrize(("user", "argv"), NOT_ENFORCEABLE)
@pytest.mark.xfail(strict=True, reason="Redis ACLs cannot refuse an argument (XADD MAXLEN/MINID trims, a group name)")
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
        if name == "admin" or (name == "default" and " off " in f" {line} "):  # no one logs in as it
            continue
        assert " ~* " not in f" {line} " and "%R~*" not in line and "~airship:* " not in line, line


def test_the_keys_module_and_the_acl_agree_on_the_layout() -> None:
    text = ACL.read_text()
    assert Keys().prefix == "airship"
    patterns = re.findall(r"~([^\s)]+)", text)
    assert all(p.startswith("airship:") or p == "*" for p in patterns), patterns
    sample = Keys(partitions=16)
    for key in (sample.meta("m"), sample.log("m"), sample.feed(3), sample.commands(3), sample.secret("m"),
                sample.sent("m"), sample.seen("m"), sample.view("m", "public"), sample.results("m"),
                sample.updates("m"), sample.matches(3, "open"), sample.players("names"), sample.players("keys"),
                sample.seat_players(3), sample.ratings("epoch"), sample.ratings("nim:standings"),
                sample.arena("waiting"), sample.arena("t:0123"), sample.limits("gateways"), sample.limits("gw:g1"),
                sample.limits("rate:token_rate:00ff")):
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
    assert {user for user, _ in logins} == {"worker", "projector", "gateway", "archiver", "ratings", "exporter"}
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
    (write logs, meta, read or trim the command streams, ...) is refused. It may publish to a command stream (the
    idle expiry of a running match nobody moved in), and does, as itself."""
    import time
    import uuid

    import redis

    from schemas.envelopes import MatchMeta
    from services.archive.archiver import ArchiveError, Archiver
    from services.archive.files import archive_path
    from services.archive.purge import publish_purge, wait_purged
    from services.pipeline.lobby import create_match
    from services.pipeline.redis_backend import RedisStore
    from services.replay.files import read_match
    from tests.pipeline import nim  # noqa: F401  (registers nim)
    from tests.pipeline.redis_fixtures import spawn, stop

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
            # one pass's steps for this match's partition (run_once would also archive the match `played` left);
            # the keys go by the archiver's match.purge, decided by a worker logged in as `worker`
            worker = spawn(Settings(redis_url=server.url("worker"), key_prefix=keys.prefix, partitions=keys.partitions,
                                    block_ms=50, claim_every_s=0.5), "worker",
                           AIRSHIP_HEALTH_PORT="0", AIRSHIP_METRICS_PORT="0")
            try:
                partition = keys.partition(done.match_id)
                assert done.match_id.encode() in client.zrange(keys.matches(partition, "finished"), 0, -1)
                assert archiver.due(partition, [done.match_id]) == [done.match_id]
                assert archiver.archive(done.match_id) is True
                assert read_match(archive_path(root, done.match_id, keys.partitions)).events == events
                assert not list(raw.scan_iter(
                    match=f"{keys.tag(keys.partition(done.match_id))}:match:{done.match_id}:*"))
                with pytest.raises(ArchiveError, match="open, not finished"):  # the code path refuses running ones
                    archiver.archive(running.match_id)
                refused = [(e["username"], e["object"]) for e in server.admin.execute_command("ACL", "LOG")]
                assert not refused, f"Redis refused the archiver or the worker: {refused}"
                # a purge it publishes for a match that is not finished is refused by the worker: nothing goes
                kept = {key: raw.dump(key) for key in raw.scan_iter(
                    match=f"{keys.tag(keys.partition(running.match_id))}:match:{running.match_id}:*")}
                publish_purge(client, keys, running.match_id, "finished", store.version(running.match_id))
                publish_purge(client, keys, running.match_id, "open")  # (not past AIRSHIP_OPEN_TTL_S)
                assert wait_purged(client, keys, [running.match_id], "finished", 1.0) == set()
                assert {key: raw.dump(key) for key in kept} == kept
            finally:
                stop(worker)

            mid = running.match_id
            before = {name: raw.dump(key) for name, key in [("meta", keys.meta(mid)), ("log", keys.log(mid)),
                                                           ("secret", keys.secret(mid))]}
            cmds = keys.commands(keys.partition(mid))
            for argv in [("XADD", keys.log(mid), "99-0", "e", "x"),
                         ("XTRIM", keys.log(mid), "MAXLEN", "0"), ("XDEL", keys.log(mid), "1-0"),
                         ("HSET", keys.meta(mid), "status", "finished"), ("SET", keys.secret(mid), "1"),
                         ("EXPIRE", keys.log(mid), "1"), ("XRANGE", cmds, "-", "+"), ("DEL", cmds),
                         ("UNLINK", cmds), ("UNLINK", keys.matches(keys.partition(mid), "finished")),
                         ("UNLINK", keys.log(mid)), ("UNLINK", keys.meta(mid)), ("DEL", keys.log(mid)),
                         ("UNLINK", keys.secret(mid)), ("ZREM", keys.match_matches(mid, "open"), mid),
                         ("ZADD", keys.matches(keys.partition(mid), "finished"), "1", mid),
                         ("ZADD", keys.match_matches(mid, "running"), "1", "x"),
                         ("HSET", keys.view(mid, "public"), "v", "1"),
                         ("KEYS", "*"), ("SCAN", "0"), ("FLUSHDB",), ("CONFIG", "SET", "save", ""),
                         ("EVAL", "return redis.call('XADD', KEYS[1], '*', 'e', 'x')", "1", keys.log(mid))]:
                with pytest.raises(redis.exceptions.NoPermissionError):
                    client.execute_command(*argv)
            assert {name: raw.dump(keys.match(mid, name)) for name in before} == before

            # the idle expiry (services.archive.idle): a running match nobody moved in gets the system command on
            # its partition's stream, published by the archiver; that XADD is all it may do to a command stream
            for seat in range(2):
                store.claim_seat(mid, seat, f"cred-{seat}")
            assert raw.hget(keys.meta(mid), "status") == b"running"
            length = raw.xlen(cmds)
            server.admin.execute_command("ACL", "LOG", "RESET")  # (the refusals above were expected)
            # (other tests' matches on this server may share the partition: they are ended too)
            ended = archiver.idle_expiry.run(keys.partition(mid), (time.time() + 10**6) * 1000)
            assert mid in ended and raw.xlen(cmds) == length + len(ended)
            refused = [(e["username"], e["object"]) for e in server.admin.execute_command("ACL", "LOG")]
            assert not refused, f"Redis refused the archiver's idle expiry: {refused}"
            for argv in [("XRANGE", cmds, "-", "+"), ("XTRIM", cmds, "MAXLEN", "0"), ("XDEL", cmds, "1-0"),
                         ("XREADGROUP", "GROUP", "workers", "a", "STREAMS", cmds, ">"),
                         ("ZADD", keys.match_matches(mid, "running"), "1", "x"),
                         ("ZREM", keys.match_matches(mid, "running"), mid)]:
                with pytest.raises(redis.exceptions.NoPermissionError):
                    client.execute_command(*argv)
        for key in raw.scan_iter(match=f"{keys.tag(keys.partition(mid))}:match:{mid}:*"):
            raw.unlink(key)
        raw.zrem(keys.match_matches(mid, "open"), mid)
        raw.zrem(keys.match_matches(mid, "running"), mid)


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
