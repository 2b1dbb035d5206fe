"""A private Redis Cluster on loopback, for tests and chaos runs: N masters with R replicas each, every node a
real ``redis-server --cluster-enabled yes`` with its own port, cluster-bus port and directory, all loaded from
the shipped ``infra/redis/redis.conf`` and ``users.acl`` exactly as production loads them. Only what a host run
must change is changed (``dir``, ``aclfile``, ``bind``, ``port``, ``logfile``), and the cluster directives are
added; nothing else of the shipped config is touched.

ACL in a cluster:

- every node loads the same ``users.acl`` (``default`` is off there, so nobody gets in without a user);
- the cluster bus (gossip, failover votes, slot config) is not subject to ACL;
- replication *is*: a replica logs in to its master as a client, so each node gets ``masteruser`` /
  ``masterauth`` (here the ``admin`` user; users.acl has no replication-only user, see ``masteruser``);
- ``redis-cli --cluster create`` and the slot moves (CLUSTER SETSLOT, MIGRATE ... AUTH2) run as ``admin``;
  MIGRATE logs in to the target node itself, hence its AUTH2.

Operations (each waits until every live node agrees and reports ``cluster_state:ok``):

- :meth:`OwnCluster.kill_master` -- ``kill -9`` a master, wait until one of its replicas is promoted and owns its
  slots; ``restart=True`` starts the killed node again on its directory, where it rejoins as a replica;
- :meth:`OwnCluster.move_slot` -- one slot to another master by hand (IMPORTING / MIGRATING, MIGRATE in batches,
  SETSLOT NODE to the target, the source, then every other master), safe while clients keep writing;
- :meth:`OwnCluster.owner_of` / :meth:`OwnCluster.slot_of` -- which master serves a slot, which slot a key (or
  a hash tag such as ``{3}``: a partition's keys, whatever the prefix) is in.

Use::

    with OwnCluster(tmp_dir) as cluster:           # started; stopped on exit, even after an error
        rc = cluster.client("worker")              # redis.cluster.RedisCluster logged in as the ACL user
        slot = cluster.slot_of("{3}")              # partition 3 of any prefix
        cluster.move_slot(slot, cluster.other_master(cluster.owner_of(slot)))
        new_master = cluster.kill_master(cluster.owner_of(slot), restart=True)
"""

from __future__ import annotations

import atexit
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis
from redis.backoff import NoBackoff
from redis.cluster import ClusterNode, RedisCluster
from redis.crc import key_slot
from redis.retry import Retry

from services import redis_binary

ROOT = Path(__file__).resolve().parents[2]
CONF = ROOT / "infra" / "redis" / "redis.conf"
ACL = ROOT / "infra" / "redis" / "users.acl"
HOST = "127.0.0.1"
SLOTS = 16384
OVERRIDDEN = ("dir", "aclfile", "bind", "port", "logfile", "daemonize", "pidfile")


class ClusterError(RuntimeError):
    """The cluster did not reach the state asked for in time (the message says what it saw last)."""


def acl_passwords(acl: Path = ACL) -> dict[str, str]:
    """user -> its password, from an ACL file (the first ``>password`` of each user line)."""
    found = {}
    for line in acl.read_text().splitlines():
        words = line.split()
        if len(words) >= 2 and words[0] == "user":
            found[words[1]] = next((w[1:] for w in words if w.startswith(">")), "")
    return found


def free_ports(n: int) -> list[int]:
    """``n`` distinct free TCP ports on loopback (all held open while choosing, so no port comes twice)."""
    with ExitStack() as stack:
        socks = [stack.enter_context(socket.socket()) for _ in range(n)]
        for s in socks:
            s.bind((HOST, 0))
        return [int(s.getsockname()[1]) for s in socks]


def command(client: redis.Redis, *argv: Any) -> Any:
    """A raw command (redis-py types ``execute_command`` loosely)."""
    return client.execute_command(*argv)  # type: ignore[no-untyped-call]


def slot_of(key: str | bytes) -> int:
    """The hash slot of a key; a bare hash tag works too: ``slot_of("{3}")`` is partition 3's slot under any
    key prefix (services.keys puts every key of partition p under ``<prefix>:{p}``)."""
    return int(key_slot(key.encode() if isinstance(key, str) else key))


@dataclass(frozen=True)
class NodeView:
    """One line of CLUSTER NODES."""

    id: str
    port: int
    flags: frozenset[str]
    master_id: str | None
    link: str
    slots: frozenset[int]
    migrating: Mapping[int, str]  # slot -> target id (only on the line of the node itself)
    importing: Mapping[int, str]  # slot -> source id

    @property
    def is_master(self) -> bool:
        return "master" in self.flags

    @property
    def failing(self) -> bool:
        return bool({"fail", "fail?", "noaddr", "handshake"} & self.flags)


def parse_cluster_nodes(text: str) -> dict[str, NodeView]:
    """CLUSTER NODES (7.x format: ``id ip:port@bus[,hostname] flags master ping pong epoch link slot...``)."""
    out = {}
    for line in text.strip().splitlines():
        parts = line.split()
        node_id, addr, flags, master = parts[0], parts[1], frozenset(parts[2].split(",")), parts[3]
        port = int(addr.split("@")[0].rsplit(":", 1)[1] or 0)
        slots: set[int] = set()
        migrating: dict[int, str] = {}
        importing: dict[int, str] = {}
        for spec in parts[8:]:
            if spec.startswith("["):
                slot, arrow, other = spec.strip("[]").partition("->-") if "->-" in spec else \
                    spec.strip("[]").partition("-<-")
                (migrating if arrow == "->-" else importing)[int(slot)] = other
            elif "-" in spec:
                lo, hi = spec.split("-")
                slots.update(range(int(lo), int(hi) + 1))
            else:
                slots.add(int(spec))
        out[node_id] = NodeView(node_id, port, flags, None if master == "-" else master, parts[7],
                                frozenset(slots), migrating, importing)
    return out


@dataclass(eq=False)
class Node:
    """One redis-server of the cluster (its identity: the cluster node id, fixed at its first start)."""

    port: int
    bus_port: int
    dir: Path
    proc: subprocess.Popen[bytes] | None = None
    id: str = ""

    @property
    def address(self) -> str:
        return f"{HOST}:{self.port}"

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def __repr__(self) -> str:
        return f"Node({self.port}, {self.id[:8]}, {'up' if self.alive else 'down'})"


@dataclass
class OwnCluster:
    """A Redis Cluster of ``masters`` x (1 + ``replicas``) local redis-server processes under ``directory``.

    ``node_timeout_ms``: cluster-node-timeout (a dead master is failed over after about this plus ~1 s of
    election); ``extra``: more directives for every node (e.g. ``{"appendfsync": "always"}``);
    ``admin_user``: the ACL user for redis-cli --cluster, SETSLOT, MIGRATE and the harness's own checks;
    ``masteruser``: the user replicas log in to their master as (None: no masteruser/masterauth, which fails
    replication because users.acl turns ``default`` off)."""

    directory: Path
    masters: int = 3
    replicas: int = 1
    node_timeout_ms: int = 2000
    conf: Path = CONF
    acl: Path = ACL
    admin_user: str = "admin"
    masteruser: str | None = "admin"
    extra: Mapping[str, str] = field(default_factory=dict)
    nodes: list[Node] = field(default_factory=list, init=False)
    passwords: dict[str, str] = field(default_factory=dict, init=False)
    timings: dict[str, float] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        self.exe, self.cli = redis_binary.require(), redis_binary.require("redis-cli")
        self.directory = Path(self.directory)
        self.passwords = acl_passwords(self.acl)
        self._admins: dict[int, redis.Redis] = {}

    # -- life cycle ------------------------------------------------------------------------------
    def __enter__(self) -> OwnCluster:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self, timeout_s: float = 60.0) -> OwnCluster:
        """Start every node, join them (redis-cli --cluster create), wait until the cluster is ok everywhere and
        every replica is in sync. On failure the nodes started so far are left for :meth:`stop`."""
        t0 = time.monotonic()
        atexit.register(self.stop)
        count = self.masters * (1 + self.replicas)
        ports = free_ports(2 * count)
        for i in range(count):
            node = Node(ports[2 * i], ports[2 * i + 1], self.directory / f"node-{ports[2 * i]}")
            node.dir.mkdir(parents=True, exist_ok=True)
            self.nodes.append(node)
            self._spawn(node)
        for node in self.nodes:
            self._wait_ping(node, timeout_s)
            node.id = str(command(self.admin(node), "CLUSTER", "MYID"))
        self.timings["nodes_up_s"] = time.monotonic() - t0
        out = self._redis_cli("--cluster", "create", *(n.address for n in self.nodes),
                              "--cluster-replicas", str(self.replicas), "--cluster-yes", timeout_s=timeout_s)
        if "[OK] All 16384 slots covered" not in out:
            raise ClusterError(f"redis-cli --cluster create did not cover every slot:\n{out[-3000:]}")
        self.timings["create_s"] = time.monotonic() - t0
        self.wait_ok(timeout_s - (time.monotonic() - t0))
        self.timings["start_s"] = time.monotonic() - t0
        return self

    def stop(self, timeout_s: float = 10.0) -> None:
        """Stop every node (SIGTERM, SIGKILL after ``timeout_s``); idempotent. The directory stays."""
        t0 = time.monotonic()
        for client in self._admins.values():
            client.close()
        self._admins.clear()
        for node in self.nodes:
            if node.alive:
                assert node.proc is not None
                node.proc.terminate()
        for node in self.nodes:
            if node.proc is not None:
                try:
                    node.proc.wait(timeout=max(0.1, timeout_s - (time.monotonic() - t0)))
                except subprocess.TimeoutExpired:
                    node.proc.kill()
                    node.proc.wait()
        atexit.unregister(self.stop)
        self.timings["stop_s"] = time.monotonic() - t0

    def _conf_text(self, node: Node) -> str:
        overrides = {"dir": str(node.dir), "aclfile": str(self.acl), "bind": HOST, "port": str(node.port),
                     "logfile": str(node.dir / "redis.log"), "daemonize": "no"}
        lines = [line for line in self.conf.read_text().splitlines()
                 if line.split(" ", 1)[0] not in (*OVERRIDDEN, *self.extra)]
        added = {**overrides, "cluster-enabled": "yes", "cluster-config-file": "nodes.conf",
                 "cluster-node-timeout": str(self.node_timeout_ms), "cluster-port": str(node.bus_port),
                 # a replica's first sync starts at once (Redis waits 5 s by default for more replicas to share
                 # one diskless transfer): only the start-up and rejoin times change
                 "repl-diskless-sync-delay": "0", **self.extra}
        if self.masteruser is not None:
            added["masteruser"] = self.masteruser
            added["masterauth"] = self.passwords[self.masteruser]
        lines.append("# -- added by services/chaos/redis_cluster.py")
        lines += [f"{k} {v}" if v != "" else f'{k} ""' for k, v in added.items()]
        return "\n".join(lines) + "\n"

    def _spawn(self, node: Node) -> None:
        conf = node.dir / "redis.conf"
        conf.write_text(self._conf_text(node))
        conf.chmod(0o600)  # it holds masterauth
        node.proc = subprocess.Popen([self.exe, str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     cwd=node.dir)

    def _wait_ping(self, node: Node, timeout_s: float) -> None:
        def up() -> bool:
            if node.proc is not None and node.proc.poll() is not None:
                raise ClusterError(f"redis-server on {node.port} exited ({node.proc.returncode}):\n{self.log(node)}")
            try:
                return bool(self.admin(node).ping())
            except redis.RedisError:
                return False

        self._until(up, timeout_s, f"redis-server on {node.port} answering PING")

    def _redis_cli(self, *argv: str, timeout_s: float = 60.0) -> str:
        """redis-cli as the admin user (the password in REDISCLI_AUTH, never on a command line)."""
        env = {**os.environ, "REDISCLI_AUTH": self.passwords[self.admin_user]}
        proc = subprocess.run([self.cli, "--user", self.admin_user, *argv], env=env, capture_output=True,
                              text=True, timeout=timeout_s, check=False)
        if proc.returncode != 0:
            raise ClusterError(f"redis-cli {' '.join(argv[:2])} failed ({proc.returncode}):\n"
                               f"{proc.stdout[-3000:]}{proc.stderr[-2000:]}")
        return proc.stdout

    def log(self, node: Node, lines: int = 40) -> str:
        path = node.dir / "redis.log"
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) if path.exists() else ""

    # -- clients ---------------------------------------------------------------------------------
    def admin(self, node: Node) -> redis.Redis:
        """A plain client of one node, as the admin user (str replies, short timeouts, no retries: the harness
        polls); cached per port."""
        client = self._admins.get(node.port)
        if client is None:
            client = self._admins[node.port] = redis.Redis(
                host=HOST, port=node.port, username=self.admin_user, password=self.passwords[self.admin_user],
                decode_responses=True, socket_timeout=5, socket_connect_timeout=1, retry=Retry(NoBackoff(), 0))
        return client

    def login(self, node: Node, user: str, **options: Any) -> redis.Redis:
        """A plain (non-cluster) client of one node as ``user``; the caller closes it."""
        return redis.Redis(host=HOST, port=node.port, username=user, password=self.passwords[user], **options)

    def client(self, user: str = "admin", **options: Any) -> RedisCluster:
        """A ``redis.cluster.RedisCluster`` logged in as ``user``, every node given as a startup node (so it still
        starts while any one node is down); the caller closes it."""
        startup = [ClusterNode(HOST, n.port) for n in self.nodes]  # type: ignore[no-untyped-call]
        return RedisCluster(startup_nodes=startup, username=user, password=self.passwords[user], **options)

    def url(self, user: str, node: Node | None = None) -> str:
        """``redis://user:password@127.0.0.1:<port>/0`` of one node (the first live one by default): what
        ``RedisCluster.from_url`` takes (it discovers the other nodes; only db 0 exists in a cluster)."""
        node = node or self.live()[0]
        return f"redis://{user}:{self.passwords[user]}@{HOST}:{node.port}/0"

    @property
    def addresses(self) -> str:
        """``host:port,host:port,...`` of every node (the form of KEDA's ``addresses`` / AIRSHIP_REDIS_ADDRESSES)."""
        return ",".join(n.address for n in self.nodes)

    # -- topology --------------------------------------------------------------------------------
    def live(self) -> list[Node]:
        return [n for n in self.nodes if n.alive]

    def node(self, ident: str | int) -> Node:
        """A node by cluster id (or a unique prefix of it) or by port."""
        found = [n for n in self.nodes if n.port == ident or (isinstance(ident, str) and n.id.startswith(ident))]
        if len(found) != 1:
            raise KeyError(f"no single node {ident!r} among {self.nodes}")
        return found[0]

    def view(self, node: Node) -> dict[str, NodeView]:
        """CLUSTER NODES as ``node`` sees it."""
        return parse_cluster_nodes(str(command(self.admin(node), "CLUSTER", "NODES")))

    def role(self, node: Node) -> str:
        """``master`` or ``slave``, from the node itself (INFO replication)."""
        return str(self.admin(node).info("replication")["role"])

    def master_nodes(self) -> list[Node]:
        """The live masters, as each one sees itself."""
        return [n for n in self.live() if self.view(n)[n.id].is_master]

    def replicas_of(self, master: Node) -> list[Node]:
        """The live nodes that say they replicate ``master``."""
        return [n for n in self.live() if n is not master and self.view(n)[n.id].master_id == master.id]

    def owner_of(self, slot: int) -> Node:
        """The live master that serves ``slot``: the one whose own CLUSTER NODES line holds it."""
        owners = [n for n in self.master_nodes() if slot in self.view(n)[n.id].slots]
        if len(owners) != 1:
            raise ClusterError(f"slot {slot}: claimed by {owners}")
        return owners[0]

    def owner_of_key(self, key: str | bytes) -> Node:
        return self.owner_of(slot_of(key))

    slot_of = staticmethod(slot_of)

    def other_master(self, master: Node) -> Node:
        """Some live master other than ``master`` (the one with the lowest port)."""
        others = sorted((n for n in self.master_nodes() if n is not master), key=lambda n: n.port)
        if not others:
            raise ClusterError("no other master")
        return others[0]

    def problems(self) -> list[str]:
        """What keeps the cluster from being settled, empty when it is: every live node says cluster_state:ok,
        all live nodes agree on which node serves each of the 16384 slots (and that node is live) and on every
        live node's role (master, or replica of which), no live node is flagged failing, no slot is migrating
        or importing, and every live replica's link is up."""
        out: list[str] = []
        live = self.live()
        owners: dict[str, dict[int, str]] = {}
        roles: dict[str, dict[str, tuple[bool, str | None]]] = {}  # observer -> node -> (master?, its master)
        ids = {n.id for n in live}
        for node in live:
            try:
                state = self.admin(node).cluster("info")["cluster_state"]
                view = self.view(node)
            except redis.RedisError as e:
                out.append(f"{node}: {e}")
                continue
            if state != "ok":
                out.append(f"{node}: cluster_state {state}")
            out += [f"{node} sees {v.id[:8]} {sorted(v.flags)}" for v in view.values() if v.id in ids and v.failing]
            me = view[node.id]
            if me.migrating or me.importing:
                out.append(f"{node}: migrating {dict(me.migrating)} importing {dict(me.importing)}")
            owners[node.id] = {s: v.id for v in view.values() if v.is_master for s in v.slots}
            roles[node.id] = {v.id: (v.is_master, v.master_id) for v in view.values() if v.id in ids}
            if not me.is_master:
                try:
                    repl = self.admin(node).info("replication")
                except redis.RedisError as e:
                    out.append(f"{node}: {e}")
                    continue
                if repl.get("master_link_status") != "up" or repl.get("master_sync_in_progress"):
                    out.append(f"{node}: replica link {repl.get('master_link_status')}")
        for node in live:  # a node that came back (as a replica) is seen so by every other node, not only itself
            seen = {observer[node.id] for observer in roles.values() if node.id in observer}
            if len(seen) > 1:
                out.append(f"the nodes disagree on the role of {node}: {sorted(seen, key=str)}")
        maps = list(owners.values())
        if maps:
            if len(maps[0]) != SLOTS:
                out.append(f"{len(maps[0])} of {SLOTS} slots assigned")
            if any(m != maps[0] for m in maps[1:]):
                out.append("the nodes disagree on slot owners")
            dead = {owner for owner in maps[0].values() if owner not in ids}
            if dead:
                out.append(f"slots served by nodes that are down: {sorted(d[:8] for d in dead)}")
        return out

    def wait_ok(self, timeout_s: float = 30.0) -> None:
        """Until :meth:`problems` is empty on two checks in a row (a settled cluster, not a passing moment)."""
        settled = [0]

        def ok() -> bool:
            settled[0] = settled[0] + 1 if not self.problems() else 0
            return settled[0] >= 2

        self._until(ok, timeout_s, "cluster_state:ok on every node, one slot map, replicas in sync",
                    lambda: "; ".join(self.problems()[:8]))

    @staticmethod
    def _until(check: Callable[[], bool], timeout_s: float, what: str,
               last: Callable[[], str] | None = None, every_s: float = 0.1) -> None:
        deadline = time.monotonic() + timeout_s
        while not check():
            if time.monotonic() > deadline:
                raise ClusterError(f"not reached in {timeout_s:.0f}s: {what}" + (f" ({last()})" if last else ""))
            time.sleep(every_s)

    # -- failover --------------------------------------------------------------------------------
    def kill(self, node: Node) -> None:
        """SIGKILL one node (no shutdown, no final save), and forget its admin client."""
        if node.proc is not None and node.proc.poll() is None:
            node.proc.send_signal(signal.SIGKILL)
            node.proc.wait()
        client = self._admins.pop(node.port, None)
        if client is not None:
            client.close()

    def restart(self, node: Node, timeout_s: float = 60.0) -> None:
        """Start a stopped node again on its own directory (nodes.conf, AOF); it rejoins the cluster (a former
        master whose slots were taken over comes back as a replica of the new owner). Waits until settled."""
        if node.alive:
            raise ClusterError(f"{node} is running")
        self._spawn(node)
        self._wait_ping(node, timeout_s)
        self.wait_ok(timeout_s)

    def kill_master(self, master: Node, restart: bool = False, timeout_s: float = 60.0) -> Node:
        """``kill -9`` a master and wait until one of its replicas is promoted, owns all of its slots, and the
        cluster is settled again; returns the new master. ``restart``: then start the killed node again and wait
        until it is back as a replica. ``timings['failover_s']``: from the kill to a settled cluster."""
        view = self.view(master)[master.id]
        if not view.is_master or not view.slots:
            raise ClusterError(f"{master} is not a master with slots")
        candidates = self.replicas_of(master)
        if not candidates:
            raise ClusterError(f"{master} has no live replica to fail over to")
        slots = view.slots
        t0 = time.monotonic()
        self.kill(master)

        def promoted() -> Node | None:
            for replica in candidates:
                try:
                    me = self.view(replica)[replica.id]
                except redis.RedisError:
                    continue
                if me.is_master and slots <= me.slots:
                    return replica
            return None

        self._until(lambda: promoted() is not None, timeout_s, f"a replica of {master} promoted")
        new_master = promoted()
        assert new_master is not None
        self.wait_ok(timeout_s)
        self.timings["failover_s"] = time.monotonic() - t0
        if restart:
            t1 = time.monotonic()
            self.restart(master, timeout_s)
            self._until(lambda: self.view(master)[master.id].master_id == new_master.id, timeout_s,
                        f"{master} a replica of {new_master}")
            self.wait_ok(timeout_s)
            self.timings["rejoin_s"] = time.monotonic() - t1
        return new_master

    def failover(self, replica: Node, timeout_s: float = 30.0) -> None:
        """A manual, graceful failover (CLUSTER FAILOVER on a replica: the master stops taking writes until the
        replica has caught up, so nothing acknowledged is lost); waits until settled."""
        command(self.admin(replica), "CLUSTER", "FAILOVER")
        self._until(lambda: self.view(replica)[replica.id].is_master, timeout_s, f"{replica} promoted")
        self.wait_ok(timeout_s)

    # -- slot moves ------------------------------------------------------------------------------
    def move_slot(self, slot: int, target: Node, batch: int = 100, migrate_timeout_ms: int = 5000,
                  timeout_s: float = 30.0, between_batches: Callable[[], None] | None = None) -> int:
        """Move one slot, with its keys, from its master to ``target`` (another master), the way
        ``redis-cli --cluster reshard`` does it, while clients may keep using it:

        1. target: ``CLUSTER SETSLOT <slot> IMPORTING <source>``; source: ``... MIGRATING <target>``
           (from here a missing key is answered with ``-ASK`` to the target, a command over several keys of the
           slot that are split between the two nodes with ``-TRYAGAIN``);
        2. ``CLUSTER GETKEYSINSLOT`` + ``MIGRATE ... AUTH2 <admin> KEYS ...`` in batches until the source holds
           none (``between_batches`` is called after each batch: a test's hook);
        3. ``CLUSTER SETSLOT <slot> NODE <target>`` on the target, then the source, then every other master.

        Returns how many keys moved; ``timings['move_slot_s']``."""
        t0 = time.monotonic()
        source = self.owner_of(slot)
        if source is target:
            return 0
        if not self.view(target)[target.id].is_master:
            raise ClusterError(f"{target} is not a master")
        src, dst = self.admin(source), self.admin(target)
        command(dst, "CLUSTER", "SETSLOT", slot, "IMPORTING", source.id)
        command(src, "CLUSTER", "SETSLOT", slot, "MIGRATING", target.id)
        moved = 0
        while True:
            keys = command(src, "CLUSTER", "GETKEYSINSLOT", slot, batch)
            if not keys:
                break
            command(src, "MIGRATE", HOST, target.port, "", 0, migrate_timeout_ms, "AUTH2", self.admin_user,
                                self.passwords[self.admin_user], "KEYS", *keys)
            moved += len(keys)
            if between_batches is not None:
                between_batches()
        for node in [target, source, *(m for m in self.master_nodes() if m not in (target, source))]:
            command(self.admin(node), "CLUSTER", "SETSLOT", slot, "NODE", target.id)
        self._until(lambda: all(self._sees_owner(n, slot, target) for n in self.live()), timeout_s,
                    f"every node sees slot {slot} on {target}")
        self.wait_ok(timeout_s)
        self.timings["move_slot_s"] = time.monotonic() - t0
        return moved

    def _sees_owner(self, node: Node, slot: int, owner: Node) -> bool:
        view = self.view(node)
        return slot in view[owner.id].slots and not any(slot in v.slots for v in view.values() if v.id != owner.id)

    def move_tag(self, tag: str, target: Node | None = None, **options: Any) -> Node:
        """Move the slot of a hash tag (``"{3}"``, or ``"3"``) to ``target`` (default: another master);
        returns the new owner."""
        slot = slot_of(tag if tag.startswith("{") else f"{{{tag}}}")
        target = target or self.other_master(self.owner_of(slot))
        self.move_slot(slot, target, **options)
        return target

    def check(self) -> str:
        """``redis-cli --cluster check`` from the first live node (raises when it reports a problem)."""
        out = self._redis_cli("--cluster", "check", self.live()[0].address)
        if "[ERR]" in out or "[WARNING]" in out:
            raise ClusterError(out[-3000:])
        return out

    def info_of(self, nodes: Sequence[Node] | None = None) -> list[dict[str, Any]]:
        """For reports and failures: port, id, role, slots count of each node."""
        out = []
        for n in nodes or self.nodes:
            entry: dict[str, Any] = {"port": n.port, "id": n.id[:8], "alive": n.alive}
            if n.alive:
                me = self.view(n)[n.id]
                entry.update(role="master" if me.is_master else "replica", slots=len(me.slots),
                             master=(me.master_id or "")[:8])
            out.append(entry)
        return out


@contextmanager
def environment(**values: str) -> Iterator[None]:
    """Variables every process started meanwhile inherits (the workers and load generators)."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
