"""``airship bench pipeline|reducers|replay|gateway|fanout|memory|clocks``: the benchmarks of :mod:`services.bench`."""

from __future__ import annotations

import argparse

from services.cli.common import Subcommand, SubParsers, redis_flags, settings_from
from services.settings import Settings


def add_bench(sub: SubParsers) -> None:
    bench = sub.add_parser("bench", help="benchmarks").add_subparsers(dest="target", required=True)
    pipeline = bench.add_parser("pipeline", help="drain rate with 1, 2, 4 workers (tally and every built-in "
                                "game), open-loop latency at fixed rates, beside redis-benchmark XADD")
    redis_flags(pipeline)
    pipeline.add_argument("--workers", default="1,2,4", help="worker counts of the tally drains, comma-separated")
    pipeline.add_argument("--commands", type=int, default=20_000, help="tally commands per drain")
    pipeline.add_argument("--matches", type=int, default=32,
                          help="tally matches of the drains and the open loop; at least as many per game")
    pipeline.add_argument("--generators", type=int, default=2, help="load-generator processes")
    pipeline.add_argument("--games", default=None,
                          help="games drained with real commands, comma-separated (default: every built-in; "
                               "'none': none)")
    pipeline.add_argument("--game-commands", type=int, default=6000,
                          help="at least this many commands per game (whole random matches)")
    pipeline.add_argument("--rates", default="0.25,0.5,0.75",
                          help="open-loop rates, comma-separated: up to 1 a fraction of the drain rate with "
                               "--open-workers workers, above 1 commands/s ('' or 0: no open loop)")
    pipeline.add_argument("--open-workers", type=int, default=1, help="worker processes of the open-loop runs")
    pipeline.add_argument("--seconds", type=float, default=5.0, help="open-loop seconds per rate")
    pipeline.add_argument("--xadd-requests", type=int, default=100_000, help="redis-benchmark XADD requests")
    pipeline.add_argument("--cluster", action="store_true",
                          help="also drain on a Redis Cluster (3 masters, 1 replica each) started on loopback ports, "
                               "with --workers workers and once more with appends waiting for a replica")
    pipeline.add_argument("--json", action="store_true", help="one JSON object")
    reducers = bench.add_parser("reducers", help="decide+evolve and whole random-playout steps per second of "
                                "each game (no Redis)")
    reducers.add_argument("--game", action="append", default=None, help="a game (repeatable); all if absent")
    reducers.add_argument("--matches", type=int, default=200)
    reducers.add_argument("--json", action="store_true", help="one JSON object per game")
    replay = bench.add_parser("replay", help="events per second rebuilding states from exported logs (no Redis)")
    replay.add_argument("--game", action="append", default=None, help="a game (repeatable); all if absent")
    replay.add_argument("--matches", type=int, default=200)
    replay.add_argument("--json", action="store_true", help="one JSON object per game")
    gateway = bench.add_parser("gateway", help="commands/s and latency through the gateway's WebSocket vs "
                               "straight to the streams")
    redis_flags(gateway)
    gateway.add_argument("--clients", type=int, default=32, help="concurrent clients in all, one match each")
    gateway.add_argument("--processes", type=int, default=4, help="load-generator processes the clients share")
    gateway.add_argument("--commands", type=int, default=2000, help="commands per run")
    gateway.add_argument("--workers", type=int, default=1, help="worker processes")
    gateway.add_argument("--one-client-commands", type=int, default=300,
                         help="commands of the extra one-client runs (unloaded latency; 0: none)")
    gateway.add_argument("--json", action="store_true", help="one JSON object")
    fanout = bench.add_parser("fanout", help="one gateway holding many spectator sockets: Redis connections, memory "
                              "per idle socket, CPU, and how fast a move reaches every watcher")
    redis_flags(fanout)
    fanout.add_argument("--sockets", type=int, default=20_000, help="spectator WebSockets in all")
    fanout.add_argument("--matches", type=int, default=10_000, help="matches watched")
    fanout.add_argument("--per-socket", type=int, default=1, help="matches each socket subscribes to")
    fanout.add_argument("--rate", type=float, default=200.0, help="moves per second while measuring delivery")
    fanout.add_argument("--duration", type=float, default=20.0, help="seconds of moves")
    fanout.add_argument("--processes", type=int, default=4, help="watcher processes the sockets share")
    fanout.add_argument("--json", action="store_true", help="one JSON object")
    clocks = bench.add_parser("clocks", help="what watching the deadlines of many running clocked matches costs: "
                              "worker and Redis CPU per second, how late timeouts fire (#29)")
    redis_flags(clocks)
    clocks.add_argument("--matches", type=int, default=10_000, help="running matches in each window")
    clocks.add_argument("--workers", type=int, default=2, help="worker processes")
    clocks.add_argument("--seconds", type=float, default=10.0, help="seconds measured per window")
    clocks.add_argument("--clock-s", type=float, default=20.0,
                        help="the firing window's time per decision (about matches / clock-s timeouts per second)")
    clocks.add_argument("--json", action="store_true", help="one JSON object")
    memory = bench.add_parser("memory", help="Redis bytes per event and per finished match")
    redis_flags(memory)
    memory.add_argument("--game", action="append", default=None, help="a game (repeatable); all if absent")
    memory.add_argument("--matches", type=int, default=10, help="matches per game")
    memory.add_argument("--json", action="store_true", help="one JSON object")


def _reachable(settings: Settings) -> Settings:
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
        from services.bench import reducers

        return reducers.run(args.game, args.matches, args.json)
    if args.target == "replay":
        from services.bench import replay

        return replay.run(args.game, args.matches, args.json)
    if args.target == "memory":
        from services.bench import memory

        return memory.run(settings_from(args), args.game, args.matches, args.json)
    if args.target == "clocks":
        from services.bench import clocks

        return clocks.run(_reachable(settings_from(args)), args.matches, args.workers, args.seconds, args.clock_s,
                          args.json)
    if args.target == "fanout":
        import json

        from services.bench.fanout import Plan, format_report, run_fanout_bench

        plan = Plan(args.sockets, args.matches, args.per_socket, args.rate, args.duration, args.processes)
        report = run_fanout_bench(_reachable(settings_from(args)), plan)
        print(json.dumps(report) if args.json else format_report(report))
        return 0
    if args.target == "gateway":
        from services.bench.gateway.run import run_gateway_bench

        return run_gateway_bench(_reachable(settings_from(args)), args.clients, args.processes, args.commands,
                                 args.workers, args.json, args.one_client_commands)
    from services.bench.pipeline import run_pipeline_bench

    games = None if args.games is None else [g.strip() for g in args.games.split(",") if g.strip() not in ("", "none")]
    rates = "" if args.rates.strip() in ("", "0") else args.rates
    return run_pipeline_bench(_reachable(settings_from(args)), [int(w) for w in args.workers.split(",") if w.strip()],
                              args.matches, args.commands, args.xadd_requests, args.json, generators=args.generators,
                              games=games, game_commands=args.game_commands, rates=rates,
                              open_workers=args.open_workers, seconds=args.seconds, cluster=args.cluster)


BENCH = Subcommand("bench", add_bench, cmd_bench)
