"""Connecting to Redis: one server or a Redis Cluster, the same code either way (docs/redis-cluster.md).

Which one is chosen by ``AIRSHIP_REDIS_CLUSTER`` (``auto``, the default: ask the server; ``yes``; ``no``) or
by the URL's ``cluster=yes|no`` query parameter, which wins. Every key of a partition carries the hash tag
``{p}``, so a partition's keys, and every script over them, stay in one slot; what differs on a cluster:

- a blocking read cannot span slots: :mod:`services.pipeline.redis_streams` polls the partitions instead;
- scripts in a pipeline are sent as plain ``EVALSHA`` (the cluster pipeline refuses script objects; on one
  server too, which spares redis-py's SCRIPT EXISTS round trip per pipeline), and a node that does not know a
  script yet (a replica just promoted, a restarted server) answers NOSCRIPT: :func:`retry_noscript` makes those
  calls again on their own, loading the script (a NOSCRIPT call did not run);
- ``WAIT`` must go to the node that took the writes, on the same connection: :func:`wait_replicas`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, cast
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import redis
import redis.exceptions
from redis.cluster import ClusterPipeline, RedisCluster
from redis.commands.core import Script

CLUSTER_ENV = "AIRSHIP_REDIS_CLUSTER"
ADDRESSES_ENV = "AIRSHIP_REDIS_ADDRESSES"  # host:port,... more cluster nodes to start from (also KEDA's field)
YES, NO = ("yes", "1", "true", "on"), ("no", "0", "false", "off")


def cluster_choice(url: str) -> tuple[str, bool | None]:
    """The URL without the ``cluster`` parameter, and whether it (or ``AIRSHIP_REDIS_CLUSTER``) says cluster:
    True, False, or None for "ask the server"."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    said = [v.lower() for k, v in query if k == "cluster"]
    rest = urlunsplit(parts._replace(query=urlencode([(k, v) for k, v in query if k != "cluster"])))
    choice = said[-1] if said else os.environ.get(CLUSTER_ENV, "auto").strip().lower()
    if choice in YES:
        return rest, True
    if choice in NO:
        return rest, False
    if choice not in ("", "auto"):
        raise ValueError(f"cluster must be yes, no or auto, not {choice!r}")
    return rest, None


def server_is_cluster(url: str, options: dict[str, Any]) -> bool:
    """Ask the server: ``CLUSTER SLOTS`` answers on a cluster node and is refused elsewhere. A server that
    cannot be reached is taken for a single one: the process starts and its own retries wait for Redis (a
    deployment on a cluster says so with ``AIRSHIP_REDIS_CLUSTER=yes``, as the production overlay does, and
    is never asked)."""
    probe: Any = redis.Redis.from_url(url, **options)
    try:
        probe.execute_command("CLUSTER", "SLOTS")
        return True
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
        return False
    except redis.exceptions.ResponseError as e:
        if "SELECT is not allowed" in str(e):
            raise ValueError(f"{redact(url)}: a cluster has only database 0; drop the /<db> from the URL") from e
        return False  # "cluster support disabled" (or the user may not ask: then it is no cluster of ours)
    finally:
        probe.close()


def redact(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}{':***@' if parts.password else ''}{host}"
                                            f"{':' if parts.port else ''}{parts.port or ''}"))


def connect(url: str, socket_timeout_s: float | None = None, retries: int | None = None) -> redis.Redis:
    """A client for one process (thread-safe: a pool of connections per node). Bytes in, bytes out.

    ``socket_timeout_s``: longest wait for any reply (a frozen Redis must not hold a process for ever; a
    blocking read needs its block time plus a margin); ``retries``: how often redis-py retries a command
    that timed out or lost its connection (None: redis-py's default). A service loop has its own back-off
    and passes 0, so a SIGTERM is honoured within one timeout. On a cluster the client follows MOVED and
    ASK itself and refreshes its slot map after a failover; it is typed as ``redis.Redis``, whose commands
    it shares."""
    url, cluster = cluster_choice(url)
    options: dict[str, Any] = {"decode_responses": False, "socket_keepalive": True}
    if socket_timeout_s is not None:
        options["socket_timeout"] = socket_timeout_s
    if retries is not None:
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        options["retry"] = Retry(NoBackoff(), retries)
    if cluster is None:
        cluster = server_is_cluster(url, {k: v for k, v in options.items() if k != "retry"})
    if cluster:
        return cast(redis.Redis, RedisCluster.from_url(url, startup_nodes=startup_nodes(), **options))
    return redis.Redis.from_url(url, health_check_interval=30, **options)


def startup_nodes() -> list[Any]:
    """The nodes of ``AIRSHIP_REDIS_ADDRESSES`` besides the URL's: a client then starts while any one node is
    down (the URL's host may be a node that just failed)."""
    from redis.cluster import ClusterNode

    nodes = []
    for address in os.environ.get(ADDRESSES_ENV, "").split(","):
        host, _, port = address.strip().rpartition(":")
        if host and port.isdigit():
            nodes.append(ClusterNode(host, int(port)))  # type: ignore[no-untyped-call]
    return nodes


def is_cluster(r: object) -> bool:
    return isinstance(r, RedisCluster | ClusterPipeline)


def queue_script(pipe: Any, script: Script, keys: Sequence[Any], args: Sequence[Any]) -> None:
    """Queue a script call on a pipeline of either kind, as a plain EVALSHA: a script registered with the pipeline
    would make redis-py ask SCRIPT EXISTS first, a round trip more per pipeline. A node that does not know the
    script answers NOSCRIPT for that call (it did not run): :func:`retry_noscript` makes it again on its own."""
    cast(Any, pipe).execute_command("EVALSHA", script.sha, len(keys), *keys, *args)


def retry_noscript(replies: list[Any], script: Script, calls: Sequence[tuple[Sequence[Any], Sequence[Any]]],
                   first: int = 0) -> list[Any]:
    """Replies of a pipeline whose script calls ``calls`` (keys, args) start at reply ``first``: each NOSCRIPT
    answer (a node that had not loaded the script: it did not run) is replaced by the call made again on its
    own, which loads the script where needed."""
    for i, (keys, args) in enumerate(calls):
        if isinstance(replies[first + i], redis.exceptions.NoScriptError):
            try:
                replies[first + i] = script(keys=list(keys), args=list(args))
            except redis.exceptions.ResponseError as e:
                replies[first + i] = e
    return replies


def wait_replicas(r: redis.Redis, keys_by_slot_owner: Sequence[str], replicas: int, timeout_ms: int,
                  pipe: Any) -> None:
    """Queue ``WAIT replicas timeout_ms`` on ``pipe`` after its writes: once on a single server, else once per
    node owning one of ``keys_by_slot_owner`` (one key per written slot), on that node's connection."""
    if not isinstance(pipe, ClusterPipeline):
        pipe.execute_command("WAIT", replicas, timeout_ms)
        return
    cluster: Any = r
    nodes = {}
    for key in keys_by_slot_owner:
        node = cluster.nodes_manager.get_node_from_slot(cluster.keyslot(key))
        nodes[node.name] = node
    for node in nodes.values():
        cast(Any, pipe).execute_command("WAIT", replicas, timeout_ms, target_nodes=node)


def connect_async(url: str, max_connections: int = 64, socket_timeout_s: float | None = None,
                  pool_wait_s: float = 5.0) -> Any:
    """The asyncio client (the gateway's), one server or a cluster as :func:`connect` chooses; typed by the
    caller as ``redis.asyncio.Redis``, whose commands the cluster client shares.

    At most ``max_connections`` connections (per node on a cluster): on one server a request that finds them
    all busy waits up to ``pool_wait_s`` for one (then a ConnectionError: a 503), so however many requests
    come at once the gateway's connections stay bounded. A command whose connection broke (Redis restarted, a
    failover) is retried up to 3 times on a fresh one, after 50, 100 and 200 ms."""
    import redis.asyncio as aioredis
    from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
    from redis.asyncio.retry import Retry
    from redis.backoff import ExponentialBackoff

    url, cluster = cluster_choice(url)
    options: dict[str, Any] = {"decode_responses": False, "socket_keepalive": True,
                               "retry": Retry(ExponentialBackoff(cap=0.2, base=0.05), 3)}
    if socket_timeout_s is not None:
        options["socket_timeout"] = socket_timeout_s
    if cluster is None:
        cluster = server_is_cluster(url, {"socket_timeout": socket_timeout_s or 5.0})
    if cluster:
        from redis.asyncio.cluster import ClusterNode as AsyncClusterNode

        nodes = [AsyncClusterNode(n.host, n.port) for n in startup_nodes()]
        return AsyncRedisCluster.from_url(url, startup_nodes=nodes, max_connections=max_connections, **options)
    pool = aioredis.BlockingConnectionPool.from_url(url, max_connections=max_connections, timeout=pool_wait_s,
                                                    health_check_interval=30, **options)
    return aioredis.Redis(connection_pool=pool)
