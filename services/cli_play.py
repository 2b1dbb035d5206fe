"""``airship play``: one complete match among bots, through the whole pipeline."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from services.bots.base import BOTS, Bot
from services.bots.plugins import make_bot
from services.games.errors import BadOptions
from services.pipeline.client import Client
from services.pipeline.ports import EventStore
from services.pipeline.runner import InProcess, MatchReport, ProgressLine, play_match


def make_bots(spec: str, seats: int, seed: int | None, game: str | None = None) -> list[Bot]:
    kinds = [k.strip() for k in spec.split(",") if k.strip()]
    if len(kinds) == 1:
        kinds *= seats
    if len(kinds) != seats:
        raise BadOptions(f"--bots names {len(kinds)} bots for {seats} seats")
    bots: list[Bot] = []
    for seat, kind in enumerate(kinds):
        if game is not None:  # every kind: random, heuristic, ismcts[:iterations]
            bots.append(make_bot(kind, game, (seed or 0) * 1009 + seat))
            continue
        if kind not in BOTS:
            raise BadOptions(f"unknown bot '{kind}'; known: {', '.join(sorted(BOTS))}")
        bots.append(BOTS[kind]((seed or 0) * 1009 + seat))
    return bots


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


def play(args: argparse.Namespace) -> int:
    from services.cli import check_options

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


__all__ = ["Client", "play"]
