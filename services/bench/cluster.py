"""``airship bench pipeline --cluster``: the tally drain on a Redis Cluster the bench starts on loopback ports
(3 masters, 1 replica each: :class:`services.chaos.redis_cluster.OwnCluster`), with 1, 2 and 4 workers, and once
more with ``AIRSHIP_APPEND_REPLICAS=1`` (every batch waits for a replica: the cost of durability), in the same
run as the single-Redis drains it is compared with. All of it on this host: the cluster's six redis-server
processes share its cores with the workers and load generators, so the figure to read is how throughput per
worker changes, and where the time goes (Redis CPU beside worker CPU), not an absolute speed-up."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from services.bench.pipeline import Drain, drain
from services.chaos.redis_cluster import OwnCluster, environment
from services.pipeline.redis_conn import ADDRESSES_ENV
from services.settings import Settings


def cluster_drains(settings: Settings, worker_counts: list[int], commands: int, matches: int,
                   generators: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="airship-bench-cluster-") as tmp, OwnCluster(Path(tmp)) as cluster:
        on_cluster = settings.with_(redis_url=cluster.url("admin") + "?cluster=yes")
        with environment(**{ADDRESSES_ENV: cluster.addresses}):
            drains = [drain(on_cluster, "tally", w, commands, matches, generators) for w in worker_counts]
            with environment(AIRSHIP_APPEND_REPLICAS="1"):
                durable = drain(on_cluster, "tally", 1, commands, matches, generators)
        return {"masters": 3, "replicas_per_master": 1, "drain": [d.as_dict() for d in drains],
                "durable_1_worker": durable.as_dict(), "drains": drains, "durable": durable}


def per_worker(drains: list[Drain]) -> dict[int, float]:
    return {d.workers: round(d.per_s / d.workers, 1) for d in drains}
