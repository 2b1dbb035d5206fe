"""CLI commands of the Redis service: ``worker``, ``projector`` and ``bench pipeline|reducers|replay|memory``,
and the player commands ``lobby create|join|list``, ``send`` and ``watch`` (spectator).

The service commands take ``--redis URL`` (default ``AIRSHIP_REDIS_URL``); the other settings come from the
environment (:mod:`services.settings`), a few also from flags. ``worker`` and ``projector`` finish the
batch in hand and exit 0 on SIGTERM or SIGINT. The player commands go through the gateway: ``--url URL``
(default ``AIRSHIP_URL``); an unknown match, a wrong token or a dead gateway is one line on stderr and a
non-zero exit.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, TypeAlias

from services import metrics
from services.client.console import add_url, client_for, one_line_errors
from services.logs import get_logger
from services.pipeline.keys import PROJECTORS_GROUP, WORKERS_GROUP

Handler = Callable[[argparse.Namespace], int]
SubParsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
log = get_logger("cli")


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--redis", default=None, help="Redis URL (default: $AIRSHIP_REDIS_URL or the local server)")
    p.add_argument("--prefix", default=None, help="key prefix (default: $AIRSHIP_KEY_PREFIX or 'airship')")
    p.add_argument("--partitions", type=int, default=None, help="partitions P (default: $AIRSHIP_PARTITIONS or 16)")


def _service(p: argparse.ArgumentParser) -> None:
    _common(p)
    p.add_argument("--consumer", default=None, help="consumer name in the group (default: host-pid)")
    p.add_argument("--metrics-port", type=int, default=None, help="Prometheus port (default: $AIRSHIP_METRICS_PORT)")


def add_parsers(sub: SubParsers) -> None:
    from services.cli import _parse_option  # the main CLI is loaded by now

    _service(sub.add_parser("worker", help="handle commands from Redis (stateless; run any number)"))
    _service(sub.add_parser("projector", help="build the read models from the partition feeds"))

    lobby = sub.add_parser("lobby", help="create, join and list matches (through the gateway)").add_subparsers(
        dest="action", required=True)
    create = lobby.add_parser("create", help="set a match up; prints its summary as JSON")
    add_url(create)
    create.add_argument("--game", required=True)
    create.add_argument("--seats", type=int, required=True)
    create.add_argument("--option", "-o", action="append", type=_parse_option, default=[], help="name=value")
    create.add_argument("--hide-log", action="store_true",
                        help="once finished, show the log as each seat saw it, not whole (reveal_log=false)")
    join = lobby.add_parser("join", help="take a seat; prints the seat and its token (shown once) as JSON")
    add_url(join)
    join.add_argument("match_id")
    join.add_argument("--seat", type=int, default=None)
    listing = lobby.add_parser("list", help="matches, newest first, one JSON line each")
    add_url(listing)
    listing.add_argument("--status", choices=["open", "running", "finished"], default=None)
    listing.add_argument("--game", default=None)
    listing.add_argument("--limit", type=int, default=100)

    send = sub.add_parser("send", help="send one command through the gateway and print its result")
    add_url(send)
    send.add_argument("match_id")
    send.add_argument("--token", required=True, help="the seat token from 'lobby join'")
    send.add_argument("--seat", type=int, default=None, help="the seat (default: the one the token names)")
    send.add_argument("--type", required=True)
    send.add_argument("--body", type=_json_object, default={}, help="JSON object")
    send.add_argument("--key", default=None, help="idempotency key: sending the same key again is safe")
    send.add_argument("--timeout-s", type=float, default=30.0)

    watch = sub.add_parser("watch", help="spectate a match: every new public view as a JSON line")
    add_url(watch)
    watch.add_argument("match_id")
    watch.add_argument("--after-version", type=int, default=0, help="resume after this version")
    watch.add_argument("--idle-timeout-s", type=float, default=600.0)

    bench = sub.add_parser("bench", help="benchmarks").add_subparsers(dest="target", required=True)
    pipeline = bench.add_parser("pipeline", help="commands per second end to end with 1, 2, 4 workers")
    _common(pipeline)
    pipeline.add_argument("--workers", default="1,2,4", help="worker counts to measure, comma-separated")
    pipeline.add_argument("--matches", type=int, default=16, help="matches played concurrently")
    pipeline.add_argument("--commands", type=int, default=2000, help="commands per worker count")
    pipeline.add_argument("--xadd-requests", type=int, default=100_000, help="redis-benchmark XADD requests")
    pipeline.add_argument("--json", action="store_true", help="one JSON object")
    reducers = bench.add_parser("reducers", help="decide+evolve steps per second of each game (no Redis)")
    reducers.add_argument("--game", action="append", default=None, help="a game (repeatable); all if absent")
    reducers.add_argument("--matches", type=int, default=200)
    reducers.add_argument("--json", action="store_true", help="one JSON object per game")
    replay = bench.add_parser("replay", help="events per second rebuilding states from exported logs (no Redis)")
    replay.add_argument("--game", action="append", default=None, help="a game (repeatable); all if absent")
    replay.add_argument("--matches", type=int, default=200)
    replay.add_argument("--json", action="store_true", help="one JSON object per game")
    gateway = bench.add_parser("gateway", help="commands/s and latency through the gateway's WebSocket vs "
                               "straight to the streams")
    _common(gateway)
    gateway.add_argument("--clients", type=int, default=32, help="concurrent clients in all, one match each")
    gateway.add_argument("--processes", type=int, default=4, help="load-generator processes the clients share")
    gateway.add_argument("--commands", type=int, default=2000, help="commands per run")
    gateway.add_argument("--workers", type=int, default=1, help="worker processes")
    gateway.add_argument("--one-client-commands", type=int, default=300,
                         help="commands of the extra one-client runs (unloaded latency; 0: none)")
    gateway.add_argument("--json", action="store_true", help="one JSON object")
    memory = bench.add_parser("memory", help="Redis bytes per event and per finished match")
    _common(memory)
    memory.add_argument("--game", action="append", default=None, help="a game (repeatable); all if absent")
    memory.add_argument("--matches", type=int, default=10, help="matches per game")
    memory.add_argument("--json", action="store_true", help="one JSON object")


def settings_from(args: argparse.Namespace) -> Any:
    from services.settings import Settings

    settings = Settings.from_env(redis_url=args.redis, key_prefix=args.prefix, partitions=args.partitions,
                                 metrics_port=getattr(args, "metrics_port", None))
    settings.import_game_modules()
    return settings


def _serve(run: Callable[[], None], stop: Callable[[], None]) -> None:
    """Run a service loop; SIGTERM/SIGINT ask it to stop after the batch in hand."""
    def on_signal(signum: int, _frame: object) -> None:
        log.info("stopping", signal=signal.Signals(signum).name)
        stop()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    run()


def _health(settings: Any, backend: Any, streams: list[str], group: str) -> Callable[[], None]:
    """Serve /healthz and /readyz on ``settings.health_port`` (0: off); returns the loop's heartbeat.
    The loop must beat at least every ``settings.health_stale_s`` (AIRSHIP_HEALTH_STALE_S)."""
    from services.health import Health, redis_group_check, serve

    health = Health(redis_group_check(backend.redis, streams, group), stale_after_s=settings.health_stale_s)
    serve(health, settings.health_port)
    return health.beat


def _error_text(e: BaseException) -> str:
    from services.pipeline.worker import error_text

    return error_text(e)


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
                log.warning("lag report failed", error=_error_text(e))
            if stop.wait(every_s):
                return

    threading.Thread(target=loop, name="lag", daemon=True).start()


def _backend_when_ready(settings: Any, wait_s: float = 60.0) -> Any:
    """The Redis backend once Redis answers: a service started before Redis (or while it restarts and
    loads its data) waits for it instead of exiting. Its client waits at most a blocking read's time plus
    ``redis_timeout_s`` for a reply and leaves retries to the service loop, so a frozen Redis never keeps
    the process from honouring SIGTERM for long."""
    import redis

    from services.pipeline.redis_backend import RedisBackend, connect
    from services.pipeline.worker import Backoff

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
            log.warning("Redis is not reachable yet; waiting", error=_error_text(e))
            time.sleep(backoff.next_s())


def _leave(forget: Callable[[str], None], consumer: str) -> None:
    try:
        forget(consumer)
    except Exception as e:  # Redis gone at exit: the consumer stays listed, holding nothing
        log.warning("could not leave the consumer group", consumer=consumer, error=_error_text(e))


def cmd_worker(args: argparse.Namespace) -> int:
    from services.pipeline.worker import Worker

    settings = settings_from(args)
    metrics.serve(settings.metrics_port)
    backend = _backend_when_ready(settings)
    consumer = args.consumer or f"{socket.gethostname()}-{os.getpid()}"
    worker = Worker(backend.bus, backend.store, consumer, settings.worker())
    streams = [settings.keys.commands(p) for p in range(settings.partitions)]
    worker.heartbeat = _health(settings, backend, streams, WORKERS_GROUP)
    _serve(worker.run, worker.stop)
    _leave(backend.bus.forget, consumer)
    backend.close()
    return 0


def cmd_projector(args: argparse.Namespace) -> int:
    from services.pipeline.projector import Projector

    settings = settings_from(args)
    metrics.serve(settings.metrics_port)
    backend = _backend_when_ready(settings)
    consumer = args.consumer or f"{socket.gethostname()}-{os.getpid()}"
    projector = Projector(backend.store, backend.views, consumer, settings.projector_batch_size,
                          settings.block_ms, settings.claim_idle_ms, settings.claim_every_s, settings.max_deliveries)
    feeds = [settings.keys.feed(p) for p in range(settings.partitions)]
    projector.heartbeat = _health(settings, backend, feeds, PROJECTORS_GROUP)
    stop_lag = threading.Event()
    _report_lag("feed", backend.store.feed_lag, settings.claim_every_s, stop_lag, backend.store.feed_pending,
                backend.store.parked_count)
    _serve(projector.run, projector.stop)
    stop_lag.set()
    _leave(backend.store.forget_feed_consumer, consumer)
    backend.close()
    return 0


def _json_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"not JSON: {e}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("must be a JSON object")
    return value


@one_line_errors
def cmd_lobby(args: argparse.Namespace) -> int:
    from services.cli import check_options

    if args.action == "create":  # a game known here: its options checked before the gateway is asked
        check_options(args.game, dict(args.option))
    with client_for(args) as client:
        if args.action == "create":
            summary = client.create_match(args.game, args.seats, dict(args.option), reveal_log=not args.hide_log)
            print(summary.model_dump_json())
        elif args.action == "join":
            seat, token = client.join(args.match_id, args.seat)
            print(json.dumps({"match_id": args.match_id, "seat": seat, "token": token}))
        else:
            for summary in client.matches(args.status, args.game, args.limit):
                print(summary.model_dump_json())
    return 0


@one_line_errors
def cmd_send(args: argparse.Namespace) -> int:
    from services.client.common import seat_of_token

    seat = args.seat if args.seat is not None else seat_of_token(args.token)
    if seat is None:
        raise ValueError("the token does not name its seat; give --seat")
    args.http_timeout_s = min(10.0, max(args.timeout_s, 1.0))  # a gateway that never answers: --timeout-s
    with client_for(args) as client:
        result = client.call(args.match_id, seat, args.token, args.type, args.body, args.timeout_s, args.key)
    print(result.model_dump_json(exclude_none=True))
    return 0 if result.status == "accepted" else 1


@one_line_errors
def cmd_watch(args: argparse.Namespace) -> int:
    from services.client.errors import Timeout

    with client_for(args) as client:
        try:
            for record in client.subscribe(args.match_id, "public", args.after_version, args.idle_timeout_s):
                print(json.dumps({"version": record.version, "view": record.view}), flush=True)
        except Timeout:
            print(f"airship: nothing new on match {args.match_id} for {args.idle_timeout_s:g}s", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            return 0
    return 0


def _reachable(settings: Any) -> Any:
    """``settings`` once its Redis answered a PING: a dead Redis is one error line before any worker
    process of a benchmark is started (they would wait a minute for it)."""
    from services.pipeline.redis_backend import connect

    r = connect(settings.redis_url, socket_timeout_s=settings.redis_timeout_s, retries=0)
    try:
        r.ping()
    finally:
        r.close()
    return settings


def cmd_bench(args: argparse.Namespace) -> int:
    if args.target == "reducers":
        from services import bench_reducers

        return bench_reducers.run(args.game, args.matches, args.json)
    if args.target == "replay":
        from services import bench_replay

        return bench_replay.run(args.game, args.matches, args.json)
    if args.target == "memory":
        from services import bench_memory

        return bench_memory.run(settings_from(args), args.game, args.matches, args.json)
    if args.target == "gateway":
        from services.benchgw.run import run_gateway_bench

        return run_gateway_bench(_reachable(settings_from(args)), args.clients, args.processes, args.commands,
                                 args.workers, args.json, args.one_client_commands)
    from services.bench import run_pipeline_bench

    return run_pipeline_bench(_reachable(settings_from(args)), [int(w) for w in args.workers.split(",") if w.strip()],
                              args.matches, args.commands, args.xadd_requests, args.json)


COMMANDS: dict[str, Handler] = {"worker": cmd_worker, "projector": cmd_projector, "lobby": cmd_lobby,
                                "send": cmd_send, "watch": cmd_watch, "bench": cmd_bench}
