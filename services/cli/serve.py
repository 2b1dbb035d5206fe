"""The service processes: ``airship worker``, ``projector``, ``gateway`` and ``archiver``.

They take ``--redis URL`` (default ``AIRSHIP_REDIS_URL``); the other settings come from the environment
(:mod:`services.settings`), a few also from flags. Each finishes the batch (or match) in hand and exits 0 on
SIGTERM or SIGINT. A worker or projector started before Redis waits for it.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from services import metrics
from services.cli.common import Subcommand, SubParsers, redis_flags, settings_from
from services.keys import PROJECTORS_GROUP, WORKERS_GROUP
from services.logs import error_text, get_logger
from services.settings import Settings

log = get_logger("cli")


def _service_flags(p: argparse.ArgumentParser) -> None:
    redis_flags(p)
    p.add_argument("--consumer", default=None, help="consumer name in the group (default: host-pid)")
    p.add_argument("--metrics-port", type=int, default=None, help="Prometheus port (default: $AIRSHIP_METRICS_PORT)")


def add_worker(sub: SubParsers) -> None:
    _service_flags(sub.add_parser("worker", help="handle commands from Redis (stateless; run any number)"))


def add_projector(sub: SubParsers) -> None:
    _service_flags(sub.add_parser("projector", help="build the read models from the partition feeds"))


def add_gateway(sub: SubParsers) -> None:
    p = sub.add_parser("gateway", help="serve the HTTP + WebSocket API for players (the only door to Redis)")
    redis_flags(p)
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0 in a container)")
    p.add_argument("--port", type=int, default=8000)


def add_archiver(sub: SubParsers) -> None:
    p = sub.add_parser("archiver", help="archive finished matches to files and remove them from Redis")
    redis_flags(p)
    p.add_argument("--dir", type=Path, default=None, help="archive directory (default: $AIRSHIP_ARCHIVE_DIR)")
    p.add_argument("--grace-s", type=float, default=None,
                   help="archive matches finished this long ago (default: $AIRSHIP_ARCHIVE_GRACE_S or 86400)")
    p.add_argument("--every-s", type=float, default=None,
                   help="seconds between passes (default: $AIRSHIP_ARCHIVE_EVERY_S or 60)")
    p.add_argument("--metrics-port", type=int, default=None, help="Prometheus port (default: $AIRSHIP_METRICS_PORT)")
    p.add_argument("--once", action="store_true", help="one pass, then exit")


def stop_on_signals(stop: Callable[[], None]) -> None:
    """SIGTERM/SIGINT ask the service loop to stop after the batch in hand (before it began: at once). Installed
    before the process says it is ready, so a supervisor that stops it the moment it is never meets the default
    handler (which would kill it with the signal's exit status)."""
    def on_signal(signum: int, _frame: object) -> None:
        log.info("stopping", signal=signal.Signals(signum).name)
        stop()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)



def _health(settings: Settings, backend: Any, streams: list[str], group: str) -> Callable[[], None]:
    """Serve /healthz and /readyz on ``settings.health_port`` (0: off); returns the loop's heartbeat.
    The loop must beat at least every ``settings.health_stale_s`` (AIRSHIP_HEALTH_STALE_S)."""
    from services.health import Health, redis_group_check, serve

    health = Health(redis_group_check(backend.redis, streams, group), stale_after_s=settings.health_stale_s)
    serve(health, settings.health_port)
    return health.beat


def _report_lag(stream: str, lag: Callable[[], dict[int, int]], every_s: float, stop: threading.Event,
                pending: Callable[[], dict[int, Any]] | None = None,
                parked: Callable[[], int] | None = None) -> None:
    """Every ``every_s``: the lag, the pending entries (count, oldest age) per partition of ``stream`` and
    the number of parked matches, as gauges."""
    def report() -> None:
        for partition, n in lag().items():
            metrics.STREAM_LAG.labels(stream, str(partition)).set(n)
        for partition, p in (pending() if pending else {}).items():
            metrics.STREAM_PENDING.labels(stream, str(partition)).set(p.count)
            metrics.STREAM_OLDEST_PENDING.labels(stream, str(partition)).set(p.oldest_s)
        if parked is not None:
            metrics.PARKED_MATCHES.set(parked())

    def loop() -> None:
        while True:
            try:
                report()
            except Exception as e:
                log.warning("lag report failed", error=error_text(e))
            if stop.wait(every_s):
                return

    threading.Thread(target=loop, name="lag", daemon=True).start()


def _backend_when_ready(settings: Settings, wait_s: float = 60.0) -> Any:
    """The Redis backend once Redis answers: a service started before Redis (or while it restarts and
    loads its data) waits for it instead of exiting. Its client waits at most a blocking read's time plus
    ``redis_timeout_s`` for a reply and leaves retries to the service loop, so a frozen Redis never keeps
    the process from honouring SIGTERM for long."""
    import redis

    from services.pipeline.backoff import Backoff
    from services.pipeline.redis_backend import RedisBackend, connect

    deadline = time.monotonic() + wait_s
    backoff = Backoff(0.1, 2.0)
    while True:
        client = connect(settings.redis_url, socket_timeout_s=settings.block_ms / 1000 + settings.redis_timeout_s,
                         retries=0)
        try:
            return RedisBackend(settings, client)
        except redis.ConnectionError as e:  # (a TimeoutError too)
            client.close()
            if time.monotonic() > deadline:
                raise
            log.warning("Redis is not reachable yet; waiting", error=error_text(e))
            time.sleep(backoff.next_s())


def _leave(forget: Callable[[str], None], consumer: str) -> None:
    try:
        forget(consumer)
    except Exception as e:  # Redis gone at exit: the consumer stays listed, holding nothing
        log.warning("could not leave the consumer group", consumer=consumer, error=error_text(e))


def quiet_gc() -> None:
    """Fewer, shorter collector pauses in a service loop: what start-up built (modules, games, clients) is moved
    out of the collector's sight (``gc.freeze``), and the young generation is collected every 20,000
    allocations instead of 700 (a batch allocates thousands of short-lived objects, freed by reference
    counting anyway; the collector only looks for cycles)."""
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)


def cmd_worker(args: argparse.Namespace) -> int:
    from services.pipeline.worker import Worker

    settings = settings_from(args)
    metrics.serve(settings.metrics_port)
    backend = _backend_when_ready(settings)
    consumer = args.consumer or f"{socket.gethostname()}-{os.getpid()}"
    worker = Worker(backend.bus, backend.store, consumer, settings.worker())
    stop_on_signals(worker.stop)
    quiet_gc()  # (a full collection: before the process says it is ready)
    streams = [settings.keys.commands(p) for p in range(settings.partitions)]
    worker.heartbeat = _health(settings, backend, streams, WORKERS_GROUP)
    worker.run()
    if worker.reachable:  # (else leaving would wait out another timeout; the claims forget it in time)
        _leave(backend.bus.forget, consumer)
    backend.close()
    return 0


def cmd_projector(args: argparse.Namespace) -> int:
    from services.pipeline.projector import Projector

    settings = settings_from(args)
    metrics.serve(settings.metrics_port)
    backend = _backend_when_ready(settings)
    consumer = args.consumer or f"{socket.gethostname()}-{os.getpid()}"
    projector = Projector(backend.store, backend.views, consumer, **settings.projector_options())
    stop_on_signals(projector.stop)
    quiet_gc()  # (a full collection: before the process says it is ready)
    feeds = [settings.keys.feed(p) for p in range(settings.partitions)]
    projector.heartbeat = _health(settings, backend, feeds, PROJECTORS_GROUP)
    stop_lag = threading.Event()
    _report_lag("feed", backend.store.feed_lag, settings.claim_every_s, stop_lag, backend.store.feed_pending,
                backend.store.parked_count)
    projector.run()
    stop_lag.set()
    _leave(backend.store.forget_feed_consumer, consumer)
    backend.close()
    return 0


def cmd_gateway(args: argparse.Namespace) -> int:
    """The HTTP + WebSocket door for players (docs/gateway.md), served by uvicorn."""
    from services.gateway.server import serve

    args.metrics_port = None
    serve(settings_from(args), args.host, args.port)
    return 0


def cmd_archiver(args: argparse.Namespace) -> int:
    """The retention process (see :mod:`services.archive.archiver`). Settings from the environment
    (``AIRSHIP_ARCHIVE_DIR``, ``AIRSHIP_ARCHIVE_GRACE_S``, ``AIRSHIP_ARCHIVE_EVERY_S``, the Redis ones), a few
    also from flags; ``--once`` makes one pass and exits (1 if a match could not be archived)."""
    from services.archive.archiver import Archiver
    from services.health import Health, serve
    from services.pipeline.redis_backend import connect

    settings = Settings.from_env(redis_url=args.redis, key_prefix=args.prefix, partitions=args.partitions,
                                 metrics_port=args.metrics_port, archive_grace_s=args.grace_s,
                                 archive_every_s=args.every_s,
                                 archive_dir=str(args.dir) if args.dir is not None else None)
    settings.import_game_modules()
    r = connect(settings.redis_url)
    try:
        archiver = Archiver(r, settings)
    except ValueError as e:
        print(f"airship: archiver: {e}", file=sys.stderr)
        return 2
    if args.once:
        report = archiver.run_once()
        print(f"archived {len(report.archived)}, waiting {report.waiting}, errors {len(report.errors)}")
        r.close()
        return 1 if report.errors else 0
    metrics.serve(settings.metrics_port)

    def ready() -> str | None:
        try:
            r.ping()
        except Exception as e:
            return f"redis does not answer: {e}"
        return None if archiver.root.is_dir() else f"the archive directory {archiver.root} is missing"

    archiver.root.mkdir(parents=True, exist_ok=True)
    health = Health(ready, stale_after_s=max(60.0, settings.archive_every_s * 3 + 600))
    stop_on_signals(archiver.stop)
    serve(health, settings.health_port)
    if settings.archive_port:
        from services.archive.serve import serve_archive

        serve_archive(archiver.root, settings.partitions, settings.archive_port)
    archiver.heartbeat = health.beat
    archiver.run()
    r.close()
    return 0


WORKER = Subcommand("worker", add_worker, cmd_worker)
PROJECTOR = Subcommand("projector", add_projector, cmd_projector)
GATEWAY = Subcommand("gateway", add_gateway, cmd_gateway)
ARCHIVER = Subcommand("archiver", add_archiver, cmd_archiver)
