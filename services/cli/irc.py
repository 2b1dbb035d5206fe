"""``airship irc --server HOST:PORT --channel '#airship' [--url GATEWAY]``: the IRC bridge, each channel a
match table."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from pathlib import Path

from services.cli.common import Subcommand, SubParsers
from services.client.console import URL_ENV, add_url, say_error


def default_store() -> Path:
    """``$XDG_STATE_HOME/airship/irc-tables.json`` (``~/.local/state/...`` without it)."""
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(state) / "airship" / "irc-tables.json"


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
    p.add_argument("--bytes-per-s", type=float, default=1024.0,
                   help="flood control: at most this many bytes a second on average (0: no limit)")
    p.add_argument("--idle-remind-s", type=float, default=120.0,
                   help="remind a player to move (privately and in the channel) after this long (0: never)")
    p.add_argument("--colour", action="store_true", help="players' nicks in mIRC colours in the channel's event lines")
    p.add_argument("--poll-s", type=float, default=0.5, help="how often to look for moves made elsewhere")
    p.add_argument("--store", default=None, metavar="PATH",
                   help="keep the tables (matches, seats and their tokens) in this file, so a restarted bridge "
                        f"carries on (with --url; default {default_store()}); created 0600")
    p.add_argument("--no-store", action="store_true", help="keep the tables in memory only")
    p.add_argument("--board-every-s", type=float, default=30.0,
                   help="'board' and '!board' at most this often per player and per channel")


def cmd_irc(args: argparse.Namespace) -> int:
    from services.chat.irc.bridge import BridgeSettings, IrcBridge
    from services.chat.irc.connection import IrcError
    from services.chat.irc.store import StoreError
    from services.client.errors import ClientError
    from services.client.http import GatewayClient
    from services.client.protocol import GameClient
    from services.pipeline.direct import DirectClient
    from services.pipeline.memory import MemoryBackend
    from services.pipeline.projector import Projector
    from services.pipeline.worker import Worker
    from services.settings import Settings

    Settings.from_env().import_game_modules()  # AIRSHIP_GAME_MODULES: games beyond the built-in ones
    try:
        settings = BridgeSettings.from_address(
            args.server, nick=args.nick, channels=tuple(args.channel or ["#airship"]), password=args.password,
            poll_s=args.poll_s, line_interval_s=args.line_interval_s, board_every_s=args.board_every_s,
            bytes_per_s=args.bytes_per_s, idle_remind_s=args.idle_remind_s, colour=args.colour,
            store_path=None if args.no_store or not args.url else (args.store or str(default_store())))
    except ValueError as e:
        print(f"airship: {e}", file=sys.stderr)
        return 2
    if args.store and not args.url:
        print("airship: note: --store is for a bridge to a gateway (--url); the in-process service's matches end "
              "with the bridge, so its tables are kept in memory only", file=sys.stderr)
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
        client, close = DirectClient(backend), backend.close
    try:
        bridge = IrcBridge(client, settings)
    except StoreError as e:
        print(f"airship: {e}", file=sys.stderr)
        close()
        return 2
    signal.signal(signal.SIGTERM, lambda *_: bridge.stop())
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
