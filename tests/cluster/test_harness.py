"""The Redis Cluster harness (services/chaos/redis_cluster.py) on a real cluster: its shape and ACL, which node
serves a slot, a slot moved while clients keep writing, a master killed (-9) and failed over, a graceful
failover, and that every process is gone after a stop, also when the start failed.

The writers are redis-py ``RedisCluster`` clients logged in as the ``worker`` ACL user, on the production key
names (``airship:{p}:...``); each records what the server acknowledged, and the tests check that every
acknowledged write is still there afterwards (for the kill: every write acknowledged with ``WAIT 1``)."""

from __future__ import annotations

import socket
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import redis
from redis.cluster import RedisCluster

from services.chaos.redis_cluster import ACL, HOST, SLOTS, ClusterError, OwnCluster, command, slot_of
from services.keys import WORKERS_GROUP, Keys

K = Keys()
P = 3
STREAM = K.commands(P)
SLOT = slot_of(STREAM)
COUNTERS = [K.match("m3", "meta"), K.match("m3", "seen")]  # two more keys of the same slot (the match's)
BUMP = """
for i = 1, 2 do  -- HGET + HSET, as the worker's own scripts may (its user has no HINCRBY)
  redis.call('hset', KEYS[i], 'n', (tonumber(redis.call('hget', KEYS[i], 'n')) or 0) + 1)
end
return redis.call('xadd', KEYS[3], '*', 'e', ARGV[1])
"""


class Writer(threading.Thread):
    """Calls ``write`` in a loop until stopped; keeps the acknowledged results and counts the errors that
    reached the caller (after redis-py's own retries), by type and message head."""

    def __init__(self, write: Callable[[int], Any], pause_s: float = 0.002) -> None:
        super().__init__(daemon=True)
        self.write = write
        self.pause_s = pause_s
        self.acked: list[Any] = []
        self.errors: Counter[str] = Counter()
        self.stopping = threading.Event()
        self.last_error_at = 0.0
        self.first_error_at = 0.0

    def run(self) -> None:
        i = 0
        while not self.stopping.is_set():
            try:
                self.acked.append(self.write(i))
            except redis.RedisError as e:
                now = time.monotonic()
                self.first_error_at = self.first_error_at or now
                self.last_error_at = now
                self.errors[f"{type(e).__name__}: {str(e)[:60]}"] += 1
                time.sleep(0.05)
            i += 1
            time.sleep(self.pause_s)

    def stop(self) -> None:
        self.stopping.set()
        self.join(timeout=30)
        assert not self.is_alive()


def worker_client(cluster: OwnCluster) -> RedisCluster:
    return cluster.client("worker", socket_timeout=5, socket_connect_timeout=1)


# -- shape and ACL --------------------------------------------------------------------------------

def test_three_masters_each_with_a_replica_every_slot_served(redis_cluster: OwnCluster) -> None:
    masters = redis_cluster.master_nodes()
    assert len(masters) == 3 and len(redis_cluster.live()) == 6
    for master in masters:
        assert len(redis_cluster.replicas_of(master)) == 1
    served = [redis_cluster.view(m)[m.id].slots for m in masters]
    assert sum(len(s) for s in served) == SLOTS and len(frozenset().union(*served)) == SLOTS
    assert "All 16384 slots covered" in redis_cluster.check()
    assert redis_cluster.problems() == []


def test_every_node_runs_the_shipped_acl_and_config(redis_cluster: OwnCluster) -> None:
    for node in redis_cluster.nodes:
        admin = redis_cluster.admin(node)
        assert admin.config_get("aclfile")["aclfile"] == str(ACL)
        assert admin.config_get("cluster-enabled")["cluster-enabled"] == "yes"
        assert admin.config_get("maxmemory-policy")["maxmemory-policy"] == "noeviction"  # from redis.conf
        for user in ("worker", "projector", "gateway", "keda", "archiver"):
            # (KEDA's go-redis sends CLIENT SETINFO as optional and its user may not: redis-py would log a refusal)
            quiet = {"lib_name": None, "lib_version": None} if user == "keda" else {}
            with redis_cluster.login(node, user, **quiet) as client:
                assert client.ping()
        with socket.create_connection((HOST, node.port), timeout=5) as anonymous:  # users.acl turns `default` off
            anonymous.sendall(b"PING\r\n")
            assert anonymous.recv(100).startswith(b"-NOAUTH")


def test_a_worker_cluster_client_reads_and_writes_every_partition(redis_cluster: OwnCluster) -> None:
    with worker_client(redis_cluster) as rc:
        for p in range(16):
            rc.xgroup_create(K.commands(p), WORKERS_GROUP, id="0", mkstream=True)
            rc.xadd(K.commands(p), {"e": b"x"})
            assert rc.xreadgroup(WORKERS_GROUP, "w", {K.commands(p): ">"}, count=5)
    for node in redis_cluster.live():
        assert redis_cluster.admin(node).acl_log() == []


# -- slots ----------------------------------------------------------------------------------------

def test_slot_of_a_partition_is_its_hash_tag_under_any_prefix(redis_cluster: OwnCluster) -> None:
    admin = redis_cluster.admin(redis_cluster.live()[0])
    for p in range(16):
        slot = slot_of(f"{{{p}}}")
        assert slot == int(command(admin, "CLUSTER", "KEYSLOT", K.commands(p)))
        assert slot == slot_of(Keys(prefix="airship-test-abc").feed(p))


def test_owner_of_is_the_node_that_takes_the_write(redis_cluster: OwnCluster) -> None:
    with worker_client(redis_cluster) as rc:
        for p in range(16):
            slot = slot_of(K.commands(p))
            owner = redis_cluster.owner_of(slot)
            assert rc.nodes_manager.get_node_from_slot(slot).port == owner.port
            with redis_cluster.login(owner, "worker") as direct:
                direct.xadd(K.commands(p), {"e": b"x"})
            other = redis_cluster.other_master(owner)
            with redis_cluster.login(other, "worker") as wrong, pytest.raises(redis.exceptions.MovedError) as moved:
                wrong.xadd(K.commands(p), {"e": b"x"})
            assert moved.value.port == owner.port and moved.value.slot_id == slot


def test_move_slot_while_clients_write(redis_cluster: OwnCluster) -> None:
    """300 keys in the slot (three MIGRATE batches), three writers: XADD on the partition's commands stream, a
    script over three keys of the slot, a pipeline over four partitions. The slot goes to another master and
    back; nothing acknowledged is lost, and redis-py absorbs every MOVED / ASK / TRYAGAIN."""
    with worker_client(redis_cluster) as rc:
        pipe = rc.pipeline(transaction=False)
        for i in range(300):
            pipe.hset(f"{K.tag(P)}:match:fill{i}:meta", "fill", i)  # keys the worker may write
        pipe.execute()
        bump = rc.register_script(BUMP)
        bump(keys=[*COUNTERS, STREAM], args=[b"warm"])
        others = [p for p in range(16) if slot_of(K.commands(p)) != SLOT][:3]

        def pipelined(i: int) -> list[Any]:
            pipe = rc.pipeline(transaction=False)
            for p in [P, *others]:
                pipe.xadd(K.feed(p), {"e": str(i).encode()})
            return list(pipe.execute())

        writers = [Writer(lambda i: rc.xadd(STREAM, {"e": str(i).encode()})),
                   Writer(lambda i: bump(keys=[*COUNTERS, STREAM], args=[str(i).encode()])),
                   Writer(pipelined)]
        for w in writers:
            w.start()
        source = redis_cluster.owner_of(SLOT)
        target = redis_cluster.other_master(source)
        try:
            time.sleep(0.2)
            moved = redis_cluster.move_slot(SLOT, target, batch=100, between_batches=lambda: time.sleep(0.05))
            time.sleep(0.2)
            assert redis_cluster.owner_of(SLOT) is target
            back = redis_cluster.move_slot(SLOT, source, batch=100, between_batches=lambda: time.sleep(0.05))
            time.sleep(0.2)
        finally:
            for w in writers:
                w.stop()
        assert moved >= 300 and back >= 300
        assert redis_cluster.owner_of(SLOT) is source
        for w in writers:
            assert w.errors == Counter(), w.errors
            assert len(w.acked) > 20
        ids = {e[0] for e in rc.xrange(STREAM)}
        assert set(writers[0].acked) | set(writers[1].acked) <= ids
        assert int(rc.hget(COUNTERS[0], "n")) == int(rc.hget(COUNTERS[1], "n")) == len(writers[1].acked) + 1
        feed = {e[0] for e in rc.xrange(K.feed(P))}
        assert {reply[0] for reply in writers[2].acked} <= feed
        assert rc.hget(f"{K.tag(P)}:match:fill299:meta", "fill") == b"299"
        for node in redis_cluster.live():  # ASKING included: the worker user may follow every redirection
            assert redis_cluster.admin(node).acl_log() == []
        print(f"\nmove_slot {SLOT}: {moved} keys, {redis_cluster.timings['move_slot_s']:.2f}s; writes acked: "
              f"{[len(w.acked) for w in writers]}")


def test_move_tag_moves_a_partitions_slot(redis_cluster: OwnCluster) -> None:
    before = redis_cluster.owner_of(slot_of("{5}"))
    after = redis_cluster.move_tag("{5}")
    assert after is not before and redis_cluster.owner_of(slot_of(K.feed(5))) is after
    assert redis_cluster.move_tag("5", before) is before
    assert redis_cluster.owner_of(slot_of("{5}")) is before


# -- failover -------------------------------------------------------------------------------------

def test_kill_master_promotes_its_replica_and_the_killed_node_rejoins_as_replica(redis_cluster: OwnCluster) -> None:
    """kill -9 the master of partition 3 while a writer appends with ``WAIT 1`` (XADD and WAIT in one pipeline,
    WAIT sent to the slot's node, so on the connection that took the write): every write acknowledged by a
    replica survives the failover; the writer sees errors only while the slot has no master."""
    with worker_client(redis_cluster) as rc:
        rc.xadd(STREAM, {"e": b"warm"})

        def replicated_write(i: int) -> tuple[bytes, int]:
            node = rc.nodes_manager.get_node_from_slot(SLOT)
            pipe = rc.pipeline(transaction=False)
            pipe.xadd(STREAM, {"e": str(i).encode()})
            pipe.execute_command("WAIT", 1, 500, target_nodes=node)
            entry_id, replicas = pipe.execute()
            return entry_id, replicas

        writer = Writer(replicated_write)
        for node in redis_cluster.live():  # the shipped worker user may not WAIT (yet)
            command(redis_cluster.admin(node), "ACL", "SETUSER", "worker", "+wait")
        try:
            writer.start()
            time.sleep(0.3)
            old = redis_cluster.owner_of(SLOT)
            replica = redis_cluster.replicas_of(old)[0]
            new = redis_cluster.kill_master(old, restart=True)
            time.sleep(0.3)
        finally:
            writer.stop()
            for node in redis_cluster.live():
                redis_cluster.admin(node).acl_load()
        assert new is replica and redis_cluster.owner_of(SLOT) is new
        assert redis_cluster.role(old) == "slave" and redis_cluster.view(new)[old.id].master_id == new.id
        confirmed = {entry_id for entry_id, replicas in writer.acked if replicas >= 1}
        assert len(confirmed) > 20
        assert confirmed <= {e[0] for e in rc.xrange(STREAM)}
        outage = writer.last_error_at - writer.first_error_at if writer.errors else 0.0
        timings = redis_cluster.timings
        print(f"\nfailover {timings['failover_s']:.2f}s, rejoin {timings['rejoin_s']:.2f}s; "
              f"writer errors over {outage:.2f}s: {dict(writer.errors)}")


def test_graceful_failover_swaps_master_and_replica(redis_cluster: OwnCluster) -> None:
    old = redis_cluster.owner_of(SLOT)
    replica = redis_cluster.replicas_of(old)[0]
    redis_cluster.failover(replica)
    assert redis_cluster.owner_of(SLOT) is replica and redis_cluster.replicas_of(replica) == [old]


# -- life cycle -----------------------------------------------------------------------------------

def test_stop_leaves_no_process(tmp_path: Path) -> None:
    with OwnCluster(tmp_path, replicas=0) as cluster:
        procs = [n.proc for n in cluster.nodes]
        assert len(cluster.master_nodes()) == 3
    assert all(p is not None and p.poll() is not None for p in procs)
    assert cluster.timings["start_s"] < 30 and cluster.timings["stop_s"] < 10


def test_a_failed_start_stops_what_it_started(tmp_path: Path) -> None:
    cluster = OwnCluster(tmp_path, replicas=0, extra={"cluster-node-timeout": "not-a-number"})
    with pytest.raises(ClusterError, match="exited"), cluster:
        pass
    assert cluster.nodes and all(not n.alive for n in cluster.nodes)
