"""``airship chaos``: bot matches through worker processes killed at random (and a Redis restarted), then a
check of every guarantee; exits 1 on any violation."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from services.cli.common import Subcommand, SubParsers


def add_chaos(sub: SubParsers) -> None:
    p = sub.add_parser("chaos", help="bot matches while workers are killed (and Redis restarted); check guarantees")
    p.add_argument("--redis", default=None, help="Redis URL (default: $AIRSHIP_REDIS_URL); not used with "
                   "--restart-redis, which starts a private redis-server")
    p.add_argument("--matches", type=int, default=200)
    p.add_argument("--workers", type=int, default=3, help="worker processes")
    p.add_argument("--concurrency", type=int, default=8, help="matches played at the same time")
    p.add_argument("--kill-every-s", type=float, default=3.0, help="mean time between worker kills")
    p.add_argument("--restart-redis", action="store_true",
                   help="run a private redis-server (AOF, appendfsync always) and restart it during the run")
    p.add_argument("--restart-every-s", type=float, default=20.0,
                   help="time between Redis restarts, or between cluster faults with --cluster")
    p.add_argument("--cluster", action="store_true",
                   help="run a private Redis Cluster (3 masters, 1 replica each) and, in turn, move a busy "
                        "partition's slot to another master and kill a master during the run")
    p.add_argument("--append-replicas", type=int, default=1,
                   help="with --cluster: replicas each append must reach before it is acknowledged (0: none)")
    p.add_argument("--stack", action="store_true",
                   help="the shipped configuration: the stack of docker-compose.yml as real processes (redis.conf, "
                        "users.acl, each process its own Redis user), bots playing through the gateway, and a worker, "
                        "the projector, the gateway or redis-server SIGKILLed and restarted every --kill-every-s")
    p.add_argument("--targets", default="worker,projector,gateway,redis",
                   help="with --stack: the services whose processes are killed (comma-separated)")
    p.add_argument("--min-kills", type=int, default=0,
                   help="with --stack: play more matches until this many processes were killed")
    p.add_argument("--stack-dir", type=Path, default=None,
                   help="with --stack: the stack's state directory, kept after the run (logs); default: temporary")
    p.add_argument("--partitions", type=int, default=4)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--game", action="append", default=None, help="a game (repeatable); all built-in if absent")
    p.add_argument("--timeout-s", type=float, default=60.0, help="longest wait for a result or view")
    p.add_argument("--keep-keys", action="store_true", help="leave the run's keys in Redis")
    p.add_argument("--deadline-s", type=float, default=3600.0, help="give up matches still running after this")
    p.add_argument("--json", action="store_true", help="one JSON object instead of the table")


def cmd_chaos(args: argparse.Namespace) -> int:
    from services.chaos.run import ChaosOptions, run_chaos, table

    if args.stack:
        return _stack(args)

    opts = ChaosOptions(redis_url=args.redis, matches=args.matches, workers=args.workers,
                        concurrency=args.concurrency, kill_every_s=args.kill_every_s,
                        restart_redis=args.restart_redis, restart_every_s=args.restart_every_s,
                        partitions=args.partitions, seed=args.seed, timeout_s=args.timeout_s, games=args.game,
                        keep_keys=args.keep_keys, deadline_s=args.deadline_s, cluster=args.cluster,
                        append_replicas=args.append_replicas)

    report = run_chaos(opts, _progress)
    print(json.dumps({"chaos": report.as_dict()}) if args.json else table(report))
    return 1 if report.violations else 0


def _progress(done: int, total: int, elapsed_s: float) -> None:
    print(f"chaos: {done}/{total} matches, {elapsed_s:.0f}s", file=sys.stderr, flush=True)


def _stack(args: argparse.Namespace) -> int:
    from services.chaos.run import table
    from services.chaos.stack_run import StackChaosOptions, run_stack_chaos

    targets = tuple(t.strip() for t in args.targets.split(",") if t.strip())
    unknown = sorted(set(targets) - {"worker", "projector", "gateway", "redis"})
    if unknown:
        print(f"airship chaos: --targets: unknown {', '.join(unknown)} (worker, projector, gateway, redis)",
              file=sys.stderr)
        return 2
    opts = StackChaosOptions(matches=args.matches, concurrency=args.concurrency, kill_every_s=args.kill_every_s,
                             targets=targets, seed=args.seed, timeout_s=args.timeout_s, games=args.game,
                             deadline_s=args.deadline_s, dir=args.stack_dir, min_kills=args.min_kills)
    report = run_stack_chaos(opts, _progress)
    print(json.dumps({"chaos": report.as_dict()}) if args.json else table(report))
    return 1 if report.violations else 0


CHAOS = Subcommand("chaos", add_chaos, cmd_chaos)
