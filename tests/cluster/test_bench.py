"""``airship bench pipeline --cluster``: the drain on a cluster it starts itself, beside the single Redis."""

from __future__ import annotations

import os

from tests.pipeline.test_bench_json import bench


def test_the_cluster_drain_is_reported_beside_the_single_redis() -> None:
    url = os.environ.get("AIRSHIP_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
    (out,) = bench("pipeline", "--redis", url, "--prefix", "airship-test-bench-cluster", "--partitions", "4",
                   "--workers", "1,2", "--matches", "8", "--commands", "400", "--games", "none", "--rates", "",
                   "--xadd-requests", "500", "--cluster")
    cluster = out["cluster"]
    assert cluster["masters"] == 3 and [d["workers"] for d in cluster["drain"]] == [1, 2]
    assert all(d["complete"] and d["commands"] == 400 and d["commands_per_s"] > 0 and d["to_single_redis"] > 0
               for d in cluster["drain"])
    durable = cluster["durable_1_worker"]
    assert durable["complete"] and durable["commands"] == 400 and cluster["durable_to_plain_1_worker"] > 0
