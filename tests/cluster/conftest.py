"""Fixtures of the Redis Cluster tests: one real cluster (3 masters, 1 replica each, the shipped redis.conf and
users.acl on every node; :mod:`services.chaos.redis_cluster`) for the whole session, healed before each test.

- ``redis_cluster_session``: the :class:`OwnCluster`, started once (about 2 s), stopped at the end of the session
  (also when a test or the start itself failed);
- ``redis_cluster``: the same cluster for one test: any node a previous test left stopped is started again and
  the cluster is settled (``cluster_state:ok`` everywhere, one slot map, replicas in sync) before the test; every
  key is flushed after it. A test may kill nodes and move slots; it must not assume which node serves a slot
  (ask ``owner_of``).

Key prefix: the ACL users only reach keys under ``airship:`` (``~airship:*``, ``~airship:{*}:feed``, ...), so a
test that logs in as worker / projector / gateway uses the production prefix ``airship``; the cluster is private
to the session and flushed after each test, so no per-run prefix is needed (a cluster has only db 0).

Every test in this directory is marked ``cluster`` and ``slow``: ``pytest -m cluster`` runs them alone.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from services.chaos.redis_cluster import OwnCluster

HERE = Path(__file__).parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.cluster)
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def redis_cluster_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OwnCluster]:
    if shutil.which("redis-server") is None or shutil.which("redis-cli") is None:
        pytest.skip("redis-server / redis-cli are not installed (make test installs them)")
    with OwnCluster(tmp_path_factory.mktemp("redis-cluster")) as cluster:
        yield cluster


def heal(cluster: OwnCluster) -> None:
    """Start every stopped node again and wait until the cluster is settled."""
    for node in cluster.nodes:
        if not node.alive:
            cluster.restart(node)
    cluster.wait_ok()


def flush(cluster: OwnCluster) -> None:
    """FLUSHALL on every live master (replicas follow)."""
    for node in cluster.master_nodes():
        cluster.admin(node).flushall()


@pytest.fixture
def redis_cluster(redis_cluster_session: OwnCluster) -> Iterator[OwnCluster]:
    heal(redis_cluster_session)
    yield redis_cluster_session
    heal(redis_cluster_session)
    flush(redis_cluster_session)
