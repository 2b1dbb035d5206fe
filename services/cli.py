"""The ``airship`` command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from services import cli_bots, cli_chat, cli_gateway, cli_ops, cli_ops2, cli_redis, cli_tools
from services.archive import cli as archive_cli
from services.games import GAMES
from services.games.errors import Rejected
from services.stack import cli as stack_cli

# Modules adding subcommands: each has ``add_parsers(sub)`` and ``COMMANDS`` (name -> handler).
EXTENSIONS = (cli_redis, cli_tools, cli_chat, cli_bots, cli_ops, cli_gateway, archive_cli, stack_cli, cli_ops2)


def _parse_option(text: str) -> tuple[str, Any]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"option '{text}' must look like name=value")
    name, raw = text.split("=", 1)
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    return name.strip(), value


def _add_play(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("play", help="play a complete match among bots through the whole pipeline")
    p.add_argument("--game", default="moderne-zeiten", choices=sorted(GAMES))
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--seed", type=int, default=None, help="match seed (random if absent)")
    p.add_argument("--option", "-o", action="append", type=_parse_option, default=[],
                   help="match option name=value (JSON value), repeatable, e.g. -o forced_move=false")
    p.add_argument("--bots", default="random", help="comma-separated bot kinds, one per seat or one for all")
    p.add_argument("--redis", default=None, help="Redis URL; the embedded in-process backend when absent")
    p.add_argument("--save-log", type=Path, default=None, help="write the event log as JSON lines")
    p.add_argument("--quiet", action="store_true", help="no progress line")


def _add_schemas(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("schemas", help="JSON Schema files of the wire contracts")
    p.add_argument("action", choices=["export", "check"])
    p.add_argument("--out", type=Path, default=None)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="airship", description=__doc__)
    parser.add_argument("--log-level", default="warning")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_play(sub)
    _add_schemas(sub)
    sub.add_parser("games", help="list the games and their options")
    for extension in EXTENSIONS:
        extension.add_parsers(sub)
    return parser


def cmd_play(args: argparse.Namespace) -> int:
    from services.cli_play import play

    return play(args)


def cmd_schemas(args: argparse.Namespace) -> int:
    from schemas import export
    from services.gateway import openapi

    out = args.out or export.JSON_DIR
    if args.action == "export":
        for path in export.export(out):
            print(path)
        if args.out is None:
            print(openapi.export())
        return 0
    problems = export.stale(out)
    if args.out is None and openapi.stale():
        problems.append("../openapi.json")
    for rel in problems:
        print(f"stale: {rel}", file=sys.stderr)
    return 1 if problems else 0


def cmd_games(args: argparse.Namespace) -> int:
    for name, game in sorted(GAMES.items()):
        options = ", ".join(f"{k}={f.default!r}" for k, f in game.Options.model_fields.items())
        print(f"{name:16} {game.title} ({game.min_seats}-{game.max_seats} players) options: {options or '-'}")
    return 0


COMMANDS = {"play": cmd_play, "schemas": cmd_schemas, "games": cmd_games}
for _extension in EXTENSIONS:
    COMMANDS.update(_extension.COMMANDS)


def main(argv: Sequence[str] | None = None) -> int:
    from services.logs import configure

    args = build_parser().parse_args(argv)
    configure(args.log_level)
    try:
        return COMMANDS[args.command](args)
    except Rejected as e:
        print(f"airship: {e.reason}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
