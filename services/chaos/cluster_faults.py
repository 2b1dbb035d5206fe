"""``airship chaos --cluster``: the run's own Redis Cluster (3 masters, 1 replica each) and the faults a
cluster adds, in turn every ``every_s``: a busy partition's slot moved to another master while it is played
(resharding under load), then a master killed with SIGKILL (its replica is promoted; the old node comes back
as a replica of it). Each failover advances the ledger's epoch, so the checks count the results acknowledged
before it and whether their events survived it."""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field

from services.chaos.clients import Ledger
from services.chaos.redis_cluster import OwnCluster, slot_of
from services.logs import error_text, get_logger
from services.settings import Settings

log = get_logger("chaos")


@dataclass
class ClusterFaultCounts:
    slots_moved: int = 0
    failovers: int = 0
    errors: list[str] = field(default_factory=list)


class ClusterFaults(threading.Thread):
    def __init__(self, cluster: OwnCluster, settings: Settings, ledger: Ledger, every_s: float, seed: int) -> None:
        super().__init__(name="chaos-cluster-faults", daemon=True)
        self.cluster, self.settings, self.ledger, self.every_s = cluster, settings, ledger, every_s
        self.rng = random.Random(seed)
        self.counts = ClusterFaultCounts()
        self.stopping = threading.Event()

    def run(self) -> None:
        turn = 0
        while not self.stopping.wait(self.every_s):
            try:
                self.move_busy_slot() if turn % 2 == 0 else self.kill_a_master()
            except Exception as e:  # reported with the run's errors; the run goes on
                self.counts.errors.append(f"cluster fault: {error_text(e)}")
                log.warning("cluster fault failed", error=error_text(e))
            turn += 1

    def busiest_partition(self) -> int:
        """The partition with the most commands waiting or in flight (a random one when all are idle)."""
        keys = self.settings.keys
        r = self.cluster.client("admin")
        try:
            sizes = [int(r.xlen(keys.commands(p))) for p in range(self.settings.partitions)]
        finally:
            r.close()
        top = max(sizes)
        return self.rng.choice([p for p, n in enumerate(sizes) if n == top])

    def move_busy_slot(self) -> None:
        partition = self.busiest_partition()
        slot = slot_of(self.settings.keys.tag(partition))
        owner = self.cluster.owner_of(slot)
        target = self.cluster.other_master(owner)
        self.cluster.move_slot(slot, target)
        self.counts.slots_moved += 1
        log.info("slot moved", partition=partition, slot=slot, source=owner.port, target=target.port)

    def kill_a_master(self) -> None:
        master = self.rng.choice(self.cluster.master_nodes())
        promoted = self.cluster.kill_master(master, restart=True)
        with self.ledger.lock:
            self.ledger.epoch += 1
        self.counts.failovers += 1
        log.info("master killed, replica promoted", killed=master.port, promoted=promoted.port)

    def stop(self) -> None:
        self.stopping.set()
        self.join()
