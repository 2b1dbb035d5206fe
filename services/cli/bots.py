"""``airship tournament``: many matches among bots, seats rotated, and a results table."""

from __future__ import annotations

import argparse
import json

from services.cli.common import Subcommand, SubParsers, check_options, parse_option
from services.client.console import URL_ENV, add_url, one_line_errors
from services.games import get_game
from services.games.errors import BadOptions


def add_tournament(sub: SubParsers) -> None:
    p = sub.add_parser("tournament", help="many matches among bots, seats rotated; a results table")
    p.add_argument("--game", default="moderne-zeiten", help="the game (airship games lists them)")
    p.add_argument("--matches", type=int, default=100)
    p.add_argument("--bots", default="heuristic,random,random,random",
                   help="one bot per seat: random, heuristic, ismcts or ismcts:<iterations>; "
                        "a single name with --players fills every seat")
    p.add_argument("--players", type=int, default=None, help="seats, when --bots names one kind")
    p.add_argument("--seed", type=int, default=0, help="tournament seed (match and bot seeds derive from it)")
    p.add_argument("--option", "-o", action="append", type=parse_option, default=[],
                   help="match option name=value (JSON value), repeatable")
    add_url(p, help=f"play every match through the gateway at this URL (default: ${URL_ENV}; the gateway then "
                    "chooses the seeds); in-process, reproducibly, if absent")
    p.add_argument("--json", action="store_true", help="print the results as JSON instead of tables")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


@one_line_errors
def cmd_tournament(args: argparse.Namespace) -> int:
    from services.bots.tournament import ProgressBar, run_tournament
    from services.client.http import GatewayClient

    game = get_game(args.game)
    check_options(args.game, dict(args.option))
    lineup = [k.strip() for k in args.bots.split(",") if k.strip()]
    if len(lineup) == 1:
        lineup *= args.players or min(max(4, game.min_seats), game.max_seats)
    if not game.min_seats <= len(lineup) <= game.max_seats:
        raise BadOptions(f"{game.title} is for {game.min_seats} to {game.max_seats} players; "
                         f"--bots names {len(lineup)}")
    if args.matches < 1:
        raise BadOptions("--matches must be at least 1")
    client = GatewayClient(args.url) if args.url else None
    factory = (lambda: client) if client is not None else None
    progress = None if args.quiet else ProgressBar(args.game)
    try:
        result = run_tournament(args.game, lineup, args.matches, args.seed, dict(args.option), factory, progress)
    finally:
        if progress:
            progress.done()
        if client is not None:
            client.close()
    print(json.dumps(result.as_dict()) if args.json else result.table())
    return 0


TOURNAMENT = Subcommand("tournament", add_tournament, cmd_tournament)
