"""``airship stack up|status|down|logs|restart|scale``: the compose stack as plain processes on this host
(no Docker)."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

from services.cli.common import Handler, Subcommand, SubParsers


def _dir(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dir", type=Path, default=None,
                   help="state directory: logs, pids, data, state.json (default: $AIRSHIP_STACK_DIR or "
                        "~/.local/state/airship/stack)")


def add_stack(sub: SubParsers) -> None:
    stack = sub.add_parser("stack", help="run the docker-compose stack as plain processes on this host (no Docker)")
    actions = stack.add_subparsers(dest="stack_action", required=True)
    up = actions.add_parser("up", help="start redis-server and every airship service of docker-compose.yml; "
                                       "returns once they are healthy, leaving them running")
    _dir(up)
    up.add_argument("--file", type=Path, default=None, help="the compose file (default: the repository's)")
    up.add_argument("--redis-port", type=int, default=None, help="host port of Redis, 0 for any free one "
                    "(default: compose's 6379 when free, else a free one)")
    up.add_argument("--gateway-port", type=int, default=None, help="host port of the gateway, 0 for any free "
                    "one (default: compose's 8000 when free, else a free one)")
    up.add_argument("--services", default=None,
                    help="comma-separated services to start, with what they depend on (default: all of "
                         "worker,projector,gateway,bots; Redis always)")
    up.add_argument("--no-wait", dest="wait", action="store_false",
                    help="wait only for the health the dependencies need, not for the last services")
    up.add_argument("--timeout-s", type=float, default=120.0, help="longest wait for a service to be healthy")
    status = actions.add_parser("status", help="each process: pid, alive, its compose health check, ports")
    _dir(status)
    status.add_argument("--json", action="store_true")
    status.add_argument("--verbose", "-v", action="store_true", help="also the command and the rewrites made")
    down = actions.add_parser("down", help="stop every process (compose's stop signal, SIGKILL after the grace "
                                           "period); logs and data stay unless --clean")
    _dir(down)
    down.add_argument("--grace-s", type=float, default=None, help="grace period (default: compose's "
                      "stop_grace_period of each service)")
    down.add_argument("--clean", action="store_true", help="also remove the state directory (logs, Redis data)")
    restart = actions.add_parser("restart", help="restart a service's processes one at a time (each healthy "
                                                 "before the next: a rolling restart), or one process (worker-2)")
    _dir(restart)
    restart.add_argument("service")
    restart.add_argument("--timeout-s", type=float, default=120.0, help="longest wait for each to be healthy")
    restart.add_argument("--grace-s", type=float, default=None, help="grace period (default: compose's)")
    scale = actions.add_parser("scale", help="run N processes of a service (new ones planned as `up` plans them; "
                                             "surplus ones stopped, the highest numbers first)")
    _dir(scale)
    scale.add_argument("service")
    scale.add_argument("replicas", type=int)
    scale.add_argument("--timeout-s", type=float, default=120.0, help="longest wait for new ones to be healthy")
    scale.add_argument("--grace-s", type=float, default=None, help="grace period (default: compose's)")
    logs = actions.add_parser("logs", help="the log of a service (every replica) or of one process (worker-2)")
    _dir(logs)
    logs.add_argument("service")
    logs.add_argument("--tail", type=int, default=None, help="only the last N lines of each")
    logs.add_argument("--follow", "-f", action="store_true")


def _directory(args: argparse.Namespace) -> Path:
    from services.stack.run import default_dir

    return Path(args.dir) if args.dir is not None else default_dir()


def cmd_up(args: argparse.Namespace) -> int:
    from services.stack.compose import COMPOSE_FILE, ComposeError
    from services.stack.run import StackError, UpOptions, stderr_progress, up

    ports = {name: port for name, port in (("redis", args.redis_port), ("gateway", args.gateway_port))
             if port is not None}
    services = [s.strip() for s in args.services.split(",") if s.strip()] if args.services else None
    directory = _directory(args)
    opts = UpOptions(directory, args.file or COMPOSE_FILE, services, ports, args.wait, args.timeout_s)
    try:
        state = up(opts, stderr_progress)
    except (StackError, ComposeError) as e:
        print(f"airship: stack up: {e}", file=sys.stderr)
        return 1
    flag = f" --dir {state.dir}" if args.dir is not None else ""
    print(f"airship stack is up: {len(state.processes)} processes, state in {state.dir}")
    for name, url in state.urls.items():
        print(f"  {name:8} {url}")
    gateway = state.urls.get("gateway")
    if gateway:
        print("Play (another shell):")
        print(f"  export AIRSHIP_URL={gateway}")
        print("  airship lobby create --game moderne-zeiten --seats 3      # the match id")
        print("  airship lobby join <match_id>                             # a seat and its token")
        print("  airship tournament --game mad-zeppelin --matches 3 --bots random --players 4")
    print(f"Status: airship stack status{flag}   Logs: airship stack logs gateway{flag}   "
          f"Stop: airship stack down{flag}")
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    from services.stack.run import StackError, status

    try:
        state, health = status(_directory(args))
    except StackError as e:
        print(f"airship: {e}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({"dir": str(state.dir), "status": state.status, "urls": state.urls,
                          "not_reproduced": state.not_reproduced,
                          "processes": [{**p.as_dict(), "health": h.state, "health_detail": h.detail,
                                         "health_check": p.spec.health, "env": sorted(p.spec.env)}
                                        for p, h in zip(state.processes, health, strict=True)]}, indent=2))
    else:
        print(f"stack in {state.dir}: {state.status}; " + "  ".join(f"{n} {u}" for n, u in state.urls.items()))
        print(f"{'PROCESS':14} {'PID':>8}  {'HEALTH':10} PORTS")
        for proc, h in zip(state.processes, health, strict=True):
            ports = " ".join(f"{k}={v}" for k, v in proc.spec.ports.items())
            print(f"{proc.spec.name:14} {proc.pid:>8}  {h.state:10} {ports}")
            if h.state != "healthy" and h.detail:
                print(f"{'':26}{h.detail}")
            if args.verbose:
                print(f"{'':26}$ {shlex.join(proc.spec.argv)}")
                for rewrite in proc.spec.rewrites:
                    print(f"{'':26}rewrote {rewrite}")
        for what, keys in state.not_reproduced.items():
            if keys:
                print(f"not reproduced: {what}: {', '.join(keys)}")
    return 0 if health and all(h.healthy for h in health) else 1


def cmd_down(args: argparse.Namespace) -> int:
    from services.stack.run import StackError, down, stderr_progress

    try:
        down(_directory(args), stderr_progress, args.grace_s, args.clean)
    except StackError as e:
        print(f"airship: {e}", file=sys.stderr)
        return 1
    return 0


def cmd_logs(args: argparse.Namespace) -> int:
    from services.stack.run import StackError, State

    try:
        procs = State.load(_directory(args).resolve()).by_service(args.service)
    except StackError as e:
        print(f"airship: {e}", file=sys.stderr)
        return 1
    prefix = len(procs) > 1
    offsets: dict[str, int] = {}
    for proc in procs:
        path = Path(proc.spec.log)
        data = path.read_bytes() if path.exists() else b""
        offsets[proc.spec.name] = len(data)
        lines = data.decode(errors="replace").splitlines()
        for line in lines[-args.tail:] if args.tail is not None else lines:
            print(f"{proc.spec.name} | {line}" if prefix else line)
    sys.stdout.flush()
    while args.follow:
        time.sleep(0.5)
        for proc in procs:
            path = Path(proc.spec.log)
            with path.open("rb") as f:
                f.seek(offsets[proc.spec.name])
                data = f.read()
            offsets[proc.spec.name] += len(data)
            for line in data.decode(errors="replace").splitlines():
                print(f"{proc.spec.name} | {line}" if prefix else line, flush=True)
    return 0


def cmd_restart(args: argparse.Namespace) -> int:
    from services.stack.compose import ComposeError
    from services.stack.run import StackError, restart, stderr_progress

    try:
        state = restart(_directory(args), args.service, stderr_progress, args.timeout_s, args.grace_s)
    except (StackError, ComposeError) as e:
        print(f"airship: stack restart: {e}", file=sys.stderr)
        return 1
    print(f"restarted {', '.join(p.spec.name for p in state.by_service(args.service))}")
    return 0


def cmd_scale(args: argparse.Namespace) -> int:
    from services.stack.compose import ComposeError
    from services.stack.run import StackError, scale, stderr_progress

    try:
        state = scale(_directory(args), args.service, args.replicas, stderr_progress, args.timeout_s, args.grace_s)
    except (StackError, ComposeError) as e:
        print(f"airship: stack scale: {e}", file=sys.stderr)
        return 1
    print(f"{args.service}: {', '.join(state.services[args.service]) or 'none running'}")
    return 0


def cmd_stack(args: argparse.Namespace) -> int:
    handlers: dict[str, Handler] = {"up": cmd_up, "status": cmd_status, "down": cmd_down, "logs": cmd_logs,
                                    "restart": cmd_restart, "scale": cmd_scale}
    return handlers[args.stack_action](args)


STACK = Subcommand("stack", add_stack, cmd_stack)
