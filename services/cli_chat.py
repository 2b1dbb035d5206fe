"""CLI command of the IRC bridge: ``airship irc --server HOST:PORT --channel '#airship' [--redis URL]``."""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Callable

Handler = Callable[[argparse.Namespace], int]


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("irc", help="an IRC bot: each channel a match table, players seated by nick")
    p.add_argument("--server", required=True, help="the IRC server as HOST:PORT (plain TCP)")
    p.add_argument("--channel", action="append", default=[], help="a channel to serve (repeatable; default #airship)")
    p.add_argument("--nick", default="airship", help="the bot's nick (an underscore is added while it is taken)")
    p.add_argument("--password", default=None, help="the server password, if it needs one")
    p.add_argument("--redis", default=None,
                   help="Redis URL of a running service (workers and projectors); without it the bridge runs an "
                        "in-process service whose matches live only as long as it does")
    p.add_argument("--line-interval-s", type=float, default=0.5,
                   help="flood control: seconds between lines after a burst of 5 (0: no limit)")
    p.add_argument("--poll-s", type=float, default=0.5, help="how often to look for moves made elsewhere")


def cmd_irc(args: argparse.Namespace) -> int:
    from services.chat.irc.bridge import BridgeSettings, IrcBridge
    from services.chat.irc.connection import IrcError
    from services.pipeline.backends import open_backend
    from services.pipeline.client import Client
    from services.pipeline.projector import Projector
    from services.pipeline.worker import Worker
    from services.settings import Settings

    Settings.from_env().import_game_modules()  # AIRSHIP_GAME_MODULES: games outside the registry
    try:
        settings = BridgeSettings.from_address(
            args.server, nick=args.nick, channels=tuple(args.channel or ["#airship"]), password=args.password,
            poll_s=args.poll_s, line_interval_s=args.line_interval_s)
    except ValueError as e:
        print(f"airship: {e}", file=sys.stderr)
        return 2
    backend = open_backend(args.redis)
    services: list[Worker | Projector] = []
    if not args.redis:  # the embedded service, on threads of its own
        services = [Worker(backend.bus, backend.store, "irc-worker"),
                    Projector(backend.store, backend.views, "irc-projector")]
        for service in services:
            threading.Thread(target=service.run, name=type(service).__name__, daemon=True).start()
    bridge = IrcBridge(Client(backend), settings)
    try:
        bridge.run()
    except IrcError as e:
        print(f"airship: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        bridge.stop()
    finally:
        for service in services:
            service.stop()
        backend.close()
    return 0


COMMANDS: dict[str, Handler] = {"irc": cmd_irc}
