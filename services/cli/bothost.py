"""``airship bots``: the service's bots, a long-running process that plays the seats players gave to bots
(:mod:`services.bots.server`), through the gateway at ``--url`` (default ``AIRSHIP_URL``)."""

from __future__ import annotations

import argparse
import os
import signal
from pathlib import Path

from services.cli.common import Subcommand, SubParsers
from services.client.console import add_url, one_line_errors
from services.logs import get_logger

log = get_logger("cli")


def _env_number(name: str, default: float) -> float:
    raw = os.environ.get(name, "")
    try:
        return float(raw) if raw else default
    except ValueError:
        raise SystemExit(f"airship: bots: {name}={raw!r} is not a number") from None


def add_bots(sub: SubParsers) -> None:
    p = sub.add_parser("bots", help="play the seats players gave to the service's bots (a long-running process)")
    add_url(p, help="the gateway the bots play through (default: $AIRSHIP_URL)")
    p.add_argument("--max-seats", type=int, default=int(_env_number("AIRSHIP_BOTS_MAX_SEATS", 24)),
                   help="seats played at once, at most (default: $AIRSHIP_BOTS_MAX_SEATS or 24)")
    p.add_argument("--poll-s", type=float, default=_env_number("AIRSHIP_BOTS_POLL_S", 1.0),
                   help="seconds between two looks for matches wanting bots (default: $AIRSHIP_BOTS_POLL_S or 1)")
    p.add_argument("--idle-timeout-s", type=float, default=_env_number("AIRSHIP_BOTS_IDLE_TIMEOUT_S", 900.0),
                   help="give a seat up when its match has not moved for this long (default: 900)")
    p.add_argument("--pace-s", type=float, default=_env_number("AIRSHIP_BOTS_PACE_S", 0.0),
                   help="wait this long before each move, so people can follow (default: $AIRSHIP_BOTS_PACE_S or 0)")
    p.add_argument("--ismcts-iterations", type=int, default=int(_env_number("AIRSHIP_BOTS_ISMCTS_ITERATIONS", 0)),
                   help="playouts a move of the 'ismcts' strength (default: 0, each game's own budget: "
                        "docs/bots.md)")
    p.add_argument("--state", type=Path, default=os.environ.get("AIRSHIP_BOTS_STATE") or None,
                   help="keep the seats in play (with their tokens) in this file, to play them on after a restart")


@one_line_errors
def cmd_bots(args: argparse.Namespace) -> int:
    from services.bots.server import BotHost, HostSettings

    if not args.url:
        raise ValueError("give the gateway's address with --url or AIRSHIP_URL")
    if args.max_seats < 1:
        raise ValueError("--max-seats must be at least 1")
    host = BotHost(HostSettings(url=args.url, max_seats=args.max_seats, poll_s=args.poll_s,
                                idle_timeout_s=args.idle_timeout_s, pace_s=args.pace_s,
                                ismcts_iterations=args.ismcts_iterations, state_file=args.state))

    def on_signal(signum: int, _frame: object) -> None:
        log.info("stopping", signal=signal.Signals(signum).name)
        host.stop()

    from services.health import Health, serve

    health = Health(lambda: host.problem, stale_after_s=max(60.0, args.poll_s * 30))
    serve(health, int(_env_number("AIRSHIP_HEALTH_PORT", 0)))  # /healthz, /readyz (python -m services.health)
    host.heartbeat = health.beat
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    log.info("bots started", url=args.url, max_seats=args.max_seats)
    try:
        host.run()
    finally:
        host.close()
    log.info("bots stopped", finished=host.finished, given_up=host.given_up)
    return 0


BOTS = Subcommand("bots", add_bots, cmd_bots)
