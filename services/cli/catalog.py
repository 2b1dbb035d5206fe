"""What this airship knows: ``airship games`` (the games and their options) and ``airship schemas
export|check`` (the JSON Schema files of the wire contracts, and the gateway's OpenAPI document)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from services.cli.common import Subcommand, SubParsers
from services.games import GAMES
from services.games.registry import REGISTRATIONS


def add_schemas(sub: SubParsers) -> None:
    p = sub.add_parser("schemas", help="JSON Schema files of the wire contracts")
    p.add_argument("action", choices=["export", "check"])
    p.add_argument("--out", type=Path, default=None)


def add_games(sub: SubParsers) -> None:
    sub.add_parser("games", help="list the games and their options")


def cmd_schemas(args: argparse.Namespace) -> int:
    from schemas import export
    from services.games.registry import builtin_schemas
    from services.gateway import openapi

    out = args.out or export.JSON_DIR
    games = builtin_schemas()
    if args.action == "export":
        for path in export.export(games, out):
            print(path)
        if args.out is None:
            print(openapi.export())
        return 0
    problems = export.stale(games, out)
    if args.out is None and openapi.stale():
        problems.append("../openapi.json")
    for rel in problems:
        print(f"stale: {rel}", file=sys.stderr)
    return 1 if problems else 0


def cmd_games(args: argparse.Namespace) -> int:
    for name, game in sorted(GAMES.items()):
        options = ", ".join(f"{k}={f.default!r}" for k, f in game.Options.model_fields.items())
        print(f"{name:16} {game.title} ({game.min_seats}-{game.max_seats} players) options: {options or '-'}")
    for name, why in sorted(REGISTRATIONS.broken().items()):
        print(f"{name:16} does not load: {why}")
    return 0


SCHEMAS = Subcommand("schemas", add_schemas, cmd_schemas)
GAMES_LIST = Subcommand("games", add_games, cmd_games)
