"""``airship irc --server HOST:PORT --channel '#airship' [--url GATEWAY]``: the IRC bridge, each channel a
match table."""

from __future__ import annotations

import argparse
import sys
import threading

from services.cli.common import Subcommand, SubParsers
from services.client.console import URL_ENV, add_url, say_error


def add_irc(sub: SubParsers) -> None:
    p = sub.add_parser("irc", help="an IRC bot: each channel a match table, players seated by nick")
    p.add_argument("--server", required=True, help="the IRC server as HOST:PORT (plain TCP)")
    p.add_argument("--channel", action="append", default=[], help="a channel to serve (repeatable; default #airship)")
    p.add_argument("--nick", default="airship", help="the bot's nick (an underscore is added while it is taken)")
    p.add_argument("--password", default=None, help="the server password, if it needs one")
    add_url(p, help=f"the gateway URL of a running service (default: ${URL_ENV}); without one the bridge runs an "
                    "in-process service whose matches live only as long as it does")
    p.add_argument("--line-interval-s", type=float, default=0.5,
                   help="flood control: seconds between lines after a burst of 5 (0: no limit)")
    p.add_argument("--poll-s", type=float, default=0.5, help="how often to look for moves made elsewhere")


def cmd_irc(args: argparse.Namespace) -> int:
    from services.chat.irc.bridge import BridgeSettings, IrcBridge
    from services.chat.irc.connection import IrcError
    from services.client.errors import ClientError
    from services.client.http import GatewayClient
    from services.client.protocol import GameClient
    from services.pipeline.client import Client
    from services.pipeline.memory import MemoryBackend
    from services.pipeline.projector import Projector
    from services.pipeline.worker import Worker
    from services.settings import Settings

    Settings.from_env().import_game_modules()  # AIRSHIP_GAME_MODULES: games beyond the built-in ones
    try:
        settings = BridgeSettings.from_address(
            args.server, nick=args.nick, channels=tuple(args.channel or ["#airship"]), password=args.password,
            poll_s=args.poll_s, line_interval_s=args.line_interval_s)
    except ValueError as e:
        print(f"airship: {e}", file=sys.stderr)
        return 2
    services: list[Worker | Projector] = []
    client: GameClient
    if args.url:
        try:
            gateway = GatewayClient(args.url)
            gateway.games()  # a dead gateway or a wrong URL: say so now, not at the first '!new'
        except ClientError as e:
            say_error(e)
            return 2
        client, close = gateway, gateway.close
    else:  # the embedded service, on threads of its own
        backend = MemoryBackend()
        services = [Worker(backend.bus, backend.store, "irc-worker"),
                    Projector(backend.store, backend.views, "irc-projector")]
        for service in services:
            threading.Thread(target=service.run, name=type(service).__name__, daemon=True).start()
        client, close = Client(backend), backend.close
    bridge = IrcBridge(client, settings)
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
        close()
    return 0


IRC = Subcommand("irc", add_irc, cmd_irc)
