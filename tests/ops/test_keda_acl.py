"""KEDA, logged in as the ACL user ``keda``, can read the metric it scales the workers on.

A real redis-server runs infra/redis/redis.conf + users.acl (the pattern of test_acl.py). As admin, the
command streams of a few partitions get entries, the group ``workers``, entries delivered to a consumer
that died without acknowledging them (pending) and entries never delivered (lag). Then, over a raw RESP
connection, the test sends exactly what KEDA sends (read from kedacore/keda pkg/scalers/redis_streams_scaler.go
and redis_scaler.go, and go-redis v9.22 redis.go ``initConn`` / osscluster.go, the client KEDA uses):

- connecting (``getRedisClient``: ``redis.NewClient`` + ``Ping``): ``HELLO 3 AUTH <user> <password>``
  (no SETNAME: KEDA sets no client name; no SELECT: databaseIndex 0), then go-redis's
  ``CLIENT MAINT_NOTIFICATIONS ON moving-endpoint-type <type>`` (maintnotifications mode "auto") and
  ``CLIENT SETINFO LIB-NAME`` / ``LIB-VER``, whose Redis errors go-redis discards, then ``PING``;
  Redis Cluster (``redis.NewClusterClient``) adds ``CLUSTER SLOTS`` (slot map) and ``COMMAND`` (key
  positions), and ``ASKING`` during slot migrations;
- every poll of a lagCount trigger: ``INFO`` (KEDA >= 2.11 reads ``redis_version`` and wants 7+),
  ``XINFO GROUPS <stream>``, and ``XLEN <stream>`` when the group does not exist (``ERR no such key``:
  lag 0);
- every poll of a pendingEntriesCount trigger: ``XPENDING <stream> <group>`` (the summary form).

Every command KEDA needs must be allowed, ACL LOG must stay empty, and the values computed the way the
scaler computes them must add up to the backlog that was made.
"""

from __future__ import annotations

import math
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from services.keys import WORKERS_GROUP, Keys
from tests.ops.test_acl import Server, passwords
from tests.ops.test_acl import server as server
from tests.ops.test_keda import generator

KEYS = Keys(partitions=6)
STREAMS = [KEYS.commands(p) for p in range(KEYS.partitions)]

# What go-redis sends after HELLO and whose refusal it ignores (``if err != nil && !isRedisError(err)``):
# unknown to Redis 7.0 (``ERR unknown subcommand``), and an ACL naming them would not load there.
OPTIONAL = {("CLIENT", "SETINFO"), ("CLIENT", "MAINT_NOTIFICATIONS")}


def connect_sequence(user: str, password: str) -> list[tuple[str, ...]]:
    return [("HELLO", "3", "AUTH", user, password),
            ("CLIENT", "MAINT_NOTIFICATIONS", "ON", "moving-endpoint-type", "internal-fqdn"),
            ("CLIENT", "SETINFO", "LIB-NAME", "go-redis(,go1.25.0)"),
            ("CLIENT", "SETINFO", "LIB-VER", "9.22.0"),
            ("PING",)]


CLUSTER_SEQUENCE = [("CLUSTER", "SLOTS"), ("COMMAND",), ("ASKING",)]


# -- a RESP3 connection that returns errors instead of raising them -------------------------------------

@dataclass(frozen=True)
class Error:
    message: str


class Resp:
    """Just enough RESP3 to speak as go-redis does (HELLO 3), on a plain socket."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.file = self.sock.makefile("rb")

    def close(self) -> None:
        self.file.close()
        self.sock.close()

    def __call__(self, *argv: str) -> Any:
        out = b"*%d\r\n" % len(argv) + b"".join(b"$%d\r\n%s\r\n" % (len(a.encode()), a.encode()) for a in argv)
        self.sock.sendall(out)
        return self._read()

    def _line(self) -> bytes:
        return self.file.readline()[:-2]

    def _read(self) -> Any:
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind in (b"+", b"("):
            return rest.decode()
        if kind == b"-":
            return Error(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b",":
            return float(rest)
        if kind == b"#":
            return rest == b"t"
        if kind == b"_":
            return None
        if kind in (b"$", b"=", b"!"):
            n = int(rest)
            if n < 0:
                return None
            data = self.file.read(n + 2)[:-2].decode()
            if kind == b"=":
                data = data[4:]  # verbatim string: "txt:..."
            return Error(data) if kind == b"!" else data
        if kind in (b"*", b"~", b">"):
            n = int(rest)
            return None if n < 0 else [self._read() for _ in range(n)]
        if kind == b"%":
            return {self._read(): self._read() for _ in range(int(rest))}
        if kind == b"|":  # attributes precede the reply they describe
            for _ in range(2 * int(rest)):
                self._read()
            return self._read()
        raise AssertionError(f"unexpected RESP line {line!r}")


# -- what the scaler computes from the replies ------------------------------------------------------------

def lag_count(conn: Resp, stream: str, group: str = WORKERS_GROUP) -> int:
    """redis_streams_scaler.go, lagFactor: INFO (version 7+), XINFO GROUPS, XLEN without a group."""
    info = conn("INFO")
    assert isinstance(info, str), info
    version = next(line.split(":", 1)[1] for line in info.splitlines() if line.startswith("redis_version:"))
    assert int(version.split(".")[0]) >= 7, version
    groups = conn("XINFO", "GROUPS", stream)
    if isinstance(groups, Error):
        assert groups.message == "ERR no such key", groups
        return 0
    for found in groups:
        if found["name"] == group:
            return -1 if found["lag"] is None else int(found["lag"])  # go-redis reads a NULL lag as -1
    length = conn("XLEN", stream)
    assert isinstance(length, int), length
    return length


def pending_count(conn: Resp, stream: str, group: str = WORKERS_GROUP) -> int:
    """redis_streams_scaler.go, xPendingFactor: XPENDING <stream> <group> (summary), its count."""
    summary = conn("XPENDING", stream, group)
    assert isinstance(summary, list), summary
    return int(summary[0])


# -- the backlog ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Backlog:
    lag: dict[str, int]  # entries never delivered (or, without a group, the stream's length)
    pending: dict[str, int]  # delivered to a consumer, never acknowledged

    @property
    def total(self) -> int:
        return sum(self.lag.values()) + sum(self.pending.values())


@pytest.fixture(scope="module")
def backlog(server: Server) -> Backlog:
    """Partition p: 0 no stream at all; 1 a stream, no group yet (scale-from-zero before any worker ran);
    2 all acknowledged; 3 lag only; 4 pending only (a dead worker's); 5 both, some acknowledged."""
    admin = server.admin
    adds = {1: 5, 2: 4, 3: 7, 4: 3, 5: 10}
    delivered = {2: 4, 4: 3, 5: 6}
    acked = {2: 4, 5: 2}
    lag, pending = {}, {}
    for p, stream in enumerate(STREAMS):
        if p >= 2:
            admin.xgroup_create(stream, WORKERS_GROUP, id="0", mkstream=True)
        for i in range(adds.get(p, 0)):
            admin.xadd(stream, {"cmd": str(i)})
        if delivered.get(p):
            read = admin.xreadgroup(WORKERS_GROUP, "dead-worker", {stream: ">"}, count=delivered[p])
            ids = [entry_id for _, entries in read for entry_id, _ in entries]
            assert len(ids) == delivered[p]
            if acked.get(p):
                assert admin.xack(stream, WORKERS_GROUP, *ids[:acked[p]]) == acked[p]
        lag[stream] = adds.get(p, 0) - delivered.get(p, 0)
        pending[stream] = delivered.get(p, 0) - acked.get(p, 0)
    return Backlog(lag, pending)


@pytest.fixture
def keda(server: Server) -> Iterator[Resp]:
    server.admin.execute_command("ACL", "LOG", "RESET")
    conn = Resp(server.port)
    try:
        yield conn
    finally:
        conn.close()


def refused(server: Server) -> list[str]:
    """What ACL LOG recorded, less go-redis's optional commands (see OPTIONAL)."""
    entries = server.admin.execute_command("ACL", "LOG")
    found = []
    for entry in entries:
        fields = dict(zip(entry[::2], entry[1::2], strict=True)) if isinstance(entry, list) else entry
        obj = str(fields.get("object", ""))
        if tuple(obj.upper().split("|")) not in OPTIONAL:
            found.append(f"{fields.get('reason')}: {obj} ({fields.get('username')})")
    return found


def run(conn: Resp, argv: tuple[str, ...]) -> Any:
    answer = conn(*argv)
    if tuple(a.upper() for a in argv[:2]) in OPTIONAL:
        # go-redis ignores these answers; the server here may not know the subcommand at all
        assert not isinstance(answer, Error) or "unknown subcommand" in answer.message or \
            answer.message.startswith("NOPERM"), answer
    else:
        assert not isinstance(answer, Error), f"keda: {' '.join(argv[:3])} -> {answer.message}"
    return answer


# -- the tests --------------------------------------------------------------------------------------------

def test_the_triggers_use_only_the_modes_replayed_here() -> None:
    """Every generated trigger is lagCount or pendingEntriesCount mode on a command stream with the group."""
    gen = generator()
    for trigger_type in gen.VARIANTS:
        for trigger in gen.scaled_object(trigger_type)["spec"]["triggers"]:
            meta = trigger["metadata"]
            assert meta["consumerGroup"] == WORKERS_GROUP
            assert ("lagCount" in meta) != ("pendingEntriesCount" in meta), meta
            assert "streamLength" not in meta


def test_keda_connects_as_keda(server: Server, keda: Resp) -> None:
    for argv in connect_sequence("keda", passwords()["keda"]):
        answer = run(keda, argv)
        if argv[0] == "HELLO":
            assert answer["proto"] == 3 and int(answer["version"].split(".")[0]) >= 7, answer
    assert any(client["user"] == "keda" for client in server.admin.client_list())
    assert refused(server) == []


def test_the_cluster_client_may_read_the_slot_map_and_the_commands(server: Server, keda: Resp) -> None:
    """On this standalone server CLUSTER SLOTS answers that cluster support is disabled and ASKING is a
    no-op: the point is that the ACL lets them through (no NOPERM), as ACL DRYRUN confirms."""
    for argv in connect_sequence("keda", passwords()["keda"]):
        run(keda, argv)
    for argv in CLUSTER_SEQUENCE:
        answer = keda(*argv)
        assert not (isinstance(answer, Error) and answer.message.startswith("NOPERM")), (argv, answer)
        assert server.admin.execute_command("ACL", "DRYRUN", "keda", *argv) == "OK", argv
    assert refused(server) == []


def test_every_poll_runs_as_keda_and_sums_to_the_backlog(server: Server, keda: Resp,
                                                         backlog: Backlog) -> None:
    for argv in connect_sequence("keda", passwords()["keda"]):
        run(keda, argv)
    lags = {stream: lag_count(keda, stream) for stream in STREAMS}
    pendings = {stream: pending_count(keda, stream) for stream in STREAMS if stream != STREAMS[0] and
                stream != STREAMS[1]}
    assert refused(server) == []
    assert lags == backlog.lag
    assert pendings == {s: n for s, n in backlog.pending.items() if s in pendings}
    assert sum(lags.values()) + sum(pendings.values()) == backlog.total == 23


def test_xpending_without_a_group_is_an_error_as_kedas_scaler_reports_it(server: Server, keda: Resp,
                                                                        backlog: Backlog) -> None:
    """Before any worker created the groups, a pending trigger fails its poll (NOGROUP, or no such key):
    KEDA counts that as a scaler error (fallback after failureThreshold), and the lag trigger of the same
    stream still wakes the workers (XLEN). The error is Redis's own, not the ACL's."""
    for argv in connect_sequence("keda", passwords()["keda"]):
        run(keda, argv)
    for stream in STREAMS[:2]:
        answer = keda("XPENDING", stream, WORKERS_GROUP)
        assert isinstance(answer, Error) and not answer.message.startswith("NOPERM"), answer
    assert refused(server) == []


def test_the_composite_metric_gives_one_worker_per_target_of_total_backlog(server: Server, keda: Resp,
                                                                           backlog: Backlog) -> None:
    """The scalingModifiers formula over the values KEDA reads, as KEDA's HPA turns it into replicas."""
    gen = generator()
    keys = Keys(partitions=KEYS.partitions)
    for argv in connect_sequence("keda", passwords()["keda"]):
        run(keda, argv)
    values: dict[str, float] = {}
    for p, stream in enumerate(STREAMS):
        values[f"lag{p}"] = lag_count(keda, stream)
        values[f"pending{p}"] = pending_count(keda, stream) if p >= 2 else 0
    composite = eval(gen.formula(keys), {"__builtins__": {}}, values)
    assert composite == backlog.total
    assert composite > float(gen.ACTIVATION)
    assert math.ceil(composite / float(gen.TARGET)) == math.ceil(backlog.total / 20)


def test_the_acl_grants_keda_nothing_its_sequences_do_not_use(server: Server) -> None:
    """The keda line names exactly the commands of the sequences above (less the optional ones)."""
    line = next(entry for entry in server.admin.acl_list() if entry.split()[1] == "keda")
    granted = {word[1:].lower() for word in line.split() if word.startswith("+")}
    stream = STREAMS[0]
    used = {*connect_sequence("keda", "x"), *CLUSTER_SEQUENCE, ("INFO",), ("XINFO", "GROUPS", stream),
            ("XLEN", stream), ("XPENDING", stream, WORKERS_GROUP)}
    names = set()
    for argv in used:
        if tuple(a.upper() for a in argv[:2]) in OPTIONAL:
            continue
        sub = f"{argv[0]}|{argv[1]}".lower() if argv[0] in ("XINFO", "CLUSTER") else argv[0].lower()
        names.add(sub)
    assert granted == names, (granted - names, names - granted)
    assert "~" not in line.replace("%R~airship:{*}:commands", ""), "read-only, command streams only"
