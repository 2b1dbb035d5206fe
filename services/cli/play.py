"""``airship play``: one complete match among bots, through the whole pipeline (in-process, or through
Redis with ``--redis``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from services.cli.common import Subcommand, SubParsers, check_options, parse_option
from services.games import get_game
from services.games.errors import BadOptions

if TYPE_CHECKING:
    from services.bots.base import Bot
    from services.bots.runner import MatchReport
    from services.pipeline.ports import EventStore


def add_play(sub: SubParsers) -> None:
    p = sub.add_parser("play", help="play a complete match among bots through the whole pipeline")
    p.add_argument("--game", default="moderne-zeiten", help="the game (airship games lists them)")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--seed", type=int, default=None, help="match seed (random if absent)")
    p.add_argument("--option", "-o", action="append", type=parse_option, default=[],
                   help="match option name=value (JSON value), repeatable, e.g. -o forced_move=false")
    p.add_argument("--bots", default="random", help="comma-separated bot kinds, one per seat or one for all")
    p.add_argument("--redis", default=None, help="Redis URL; the embedded in-process backend when absent")
    p.add_argument("--save-log", type=Path, default=None, help="write the event log as JSON lines")
    p.add_argument("--quiet", action="store_true", help="no progress line")


def make_bots(spec: str, seats: int, seed: int | None, game: str) -> list[Bot]:
    """One bot per seat from ``--bots``: random, heuristic, ismcts[:iterations] (one kind for every seat, or
    one per seat)."""
    from services.bots.plugins import make_bot

    kinds = [k.strip() for k in spec.split(",") if k.strip()]
    if len(kinds) == 1:
        kinds *= seats
    if len(kinds) != seats:
        raise BadOptions(f"--bots names {len(kinds)} bots for {seats} seats")
    return [make_bot(kind, game, (seed or 0) * 1009 + seat) for seat, kind in enumerate(kinds)]


def save_log(store: EventStore, match_id: str, path: Path) -> int:
    """The match header (with the seed, for ``airship replay --verify``), then one event envelope a line."""
    from services.replay.transfer import export_match

    return export_match(store, match_id, path, "jsonl")


def print_report(report: MatchReport) -> None:
    outcome = report.outcome
    scores = outcome.get("scores", [])
    winners = set(outcome.get("winners", []))
    seed = getattr(report.meta, "seed", None)  # a gateway's match summary does not show it
    print(f"match {report.meta.match_id} ({report.meta.game}, seed {seed}) finished at version "
          f"{report.version} after {report.commands} commands in {report.seconds:.2f}s")
    for seat, score in enumerate(scores):
        print(f"  seat {seat}: {score:>3} points{'  winner' if seat in winners else ''}")
    if not winners:
        print("  nobody won")


def cmd_play(args: argparse.Namespace) -> int:
    from services.bots.runner import ProgressLine, play_match
    from services.pipeline.inprocess import InProcess

    get_game(args.game)  # an unknown (or broken) game: one line, before anything starts
    options = dict(args.option)
    check_options(args.game, options)
    bots = make_bots(args.bots, args.players, args.seed, args.game)
    progress = None if args.quiet else ProgressLine(f"{args.game}")
    if args.redis:
        from services.pipeline.redis_backend import redis_client_for_play

        client, cleanup = redis_client_for_play(args.redis)
    else:
        embedded = InProcess()
        client, cleanup = embedded.client(), None
    try:
        report = play_match(client, args.game, args.players, bots, options, args.seed, progress=progress)
    finally:
        if progress:
            progress.done()
        if cleanup:
            cleanup()
    print_report(report)
    if args.save_log:
        count = save_log(client.backend.store, report.meta.match_id, args.save_log)
        print(f"wrote {count} events to {args.save_log}", file=sys.stderr)
    return 0


PLAY = Subcommand("play", add_play, cmd_play)
