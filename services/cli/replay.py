"""Match logs: ``airship replay`` (step through a match from Redis or a file, or verify its log),
``export`` (Redis -> file) and ``import`` (file -> Redis)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from services.cli.common import Subcommand, SubParsers, fail
from services.replay.files import FORMATS, LogFileError, MatchLog
from services.replay.stepper import ReplayError


def add_replay(sub: SubParsers) -> None:
    p = sub.add_parser("replay", help="show a match step by step from Redis or a log file, or verify its log")
    p.add_argument("file", nargs="?", type=Path, default=None, help="a log file (JSON lines or msgpack)")
    p.add_argument("--redis", default=None, help="Redis URL, to read the match from the store (with --match)")
    p.add_argument("--match", default=None, help="the match id (with --redis)")
    p.add_argument("--archive", type=Path, default=None,
                   help="where a match no longer in Redis is looked for: the archive directory (default: "
                        "$AIRSHIP_ARCHIVE_DIR; else the archiver at $AIRSHIP_ARCHIVE_URL)")
    p.add_argument("--format", choices=FORMATS, default=None, help="file format (default: from suffix/content)")
    p.add_argument("--at", type=int, default=None, help="show (or start the interactive mode at) this version")
    p.add_argument("--seat", type=int, default=None, help="show only what this seat could see (default: public)")
    p.add_argument("--interactive", "-i", action="store_true", help="step forward and back with keys on stdin")
    p.add_argument("--verify", action="store_true",
                   help="replay through evolve and decide; exit 1 naming the first version that differs")


def add_export(sub: SubParsers) -> None:
    p = sub.add_parser("export", help="write a match's log from Redis to a file")
    p.add_argument("--redis", required=True, help="Redis URL")
    p.add_argument("--match", required=True, help="the match id")
    p.add_argument("--out", type=Path, required=True, help="the file to write")
    p.add_argument("--format", choices=FORMATS, default=None, help="jsonl (default) or msgpack")


def add_import(sub: SubParsers) -> None:
    p = sub.add_parser("import", help="store a match from a log file in Redis (the projector builds its views)")
    p.add_argument("--redis", required=True, help="Redis URL")
    p.add_argument("--in", dest="infile", type=Path, required=True, help="the file to read")
    p.add_argument("--as", dest="new_id", default=None, help="store the match under this id")
    p.add_argument("--format", choices=FORMATS, default=None)


def load_log(args: argparse.Namespace) -> MatchLog:
    """The match named on the command line: a file, or ``--redis`` with ``--match``."""
    if args.file is not None:
        from services.replay.files import read_match

        return read_match(args.file, args.format)
    if not (args.redis and args.match):
        raise ReplayError("name a log file, or --redis URL with --match ID")
    from services.pipeline.backends import open_backend
    from services.replay.transfer import load_match

    backend = open_backend(args.redis)
    try:
        if backend.store.meta(args.match) is not None:
            return load_match(backend.store, args.match)
        partitions = backend.bus.partitions
    finally:
        backend.close()
    archived = load_archived(args.match, partitions, getattr(args, "archive", None))
    if archived is None:
        raise ReplayError(f"no match '{args.match}' in Redis nor in the archive")
    return archived


def load_archived(match_id: str, partitions: int, directory: Path | None) -> MatchLog | None:
    """A match the archiver moved out of Redis: from the archive directory (``directory``, else
    ``AIRSHIP_ARCHIVE_DIR``), else from the archiver over HTTP (``AIRSHIP_ARCHIVE_URL``); None when neither has it
    (or neither is set). The archive holds the whole log with the seed, as an export does."""
    import os

    from services.archive.files import archive_path, read_archive
    from services.archive.serve import fetch_archive

    root = directory or (Path(os.environ["AIRSHIP_ARCHIVE_DIR"]) if os.environ.get("AIRSHIP_ARCHIVE_DIR") else None)
    try:
        if root is not None:
            return read_archive(archive_path(root, match_id, partitions))
        if os.environ.get("AIRSHIP_ARCHIVE_URL"):
            return fetch_archive(os.environ["AIRSHIP_ARCHIVE_URL"], match_id)
    except ValueError as e:  # not a match id (or a file that does not read: LogFileError)
        raise ReplayError(str(e)) from e
    return None


def cmd_replay(args: argparse.Namespace) -> int:
    from services.replay.stepper import Replay, interact
    from services.replay.verify import verify

    try:
        log = load_log(args)
        if args.verify:
            report = verify(log)
            print(report.summary())
            return 0 if report.ok else 1
        replay = Replay(log)
        if args.seat is not None and not 0 <= args.seat < replay.seats:
            return fail(f"seat {args.seat} does not exist; this match has seats 0 to {replay.seats - 1}")
        if args.at is not None and not 0 <= args.at <= replay.last:
            return fail(f"no version {args.at}; this match has 0..{replay.last}")
        if args.interactive:
            interact(replay, sys.stdin, sys.stdout, args.seat, 1 if args.at is None else args.at)
            return 0
        versions = [args.at] if args.at is not None else range(1, replay.last + 1)
        for version in versions:
            print(replay.render_step(version, args.seat))
        return 0
    except (LogFileError, ReplayError) as e:
        return fail(str(e))


def cmd_export(args: argparse.Namespace) -> int:
    from services.pipeline.backends import open_backend
    from services.replay.transfer import export_match

    backend = open_backend(args.redis)
    try:
        count = export_match(backend.store, args.match, args.out, args.format)
    except LogFileError as e:
        return fail(str(e))
    finally:
        backend.close()
    print(f"wrote {count} events of {args.match} to {args.out}", file=sys.stderr)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from services.pipeline.backends import open_backend
    from services.replay.transfer import import_match

    backend = open_backend(args.redis)
    try:
        meta = import_match(backend.store, args.infile, args.new_id, args.format)
        events = backend.store.version(meta.match_id)
    except LogFileError as e:
        return fail(str(e))
    finally:
        backend.close()
    print(f"imported {meta.game} match {meta.match_id} ({events} events)")
    return 0


REPLAY = Subcommand("replay", add_replay, cmd_replay)
EXPORT = Subcommand("export", add_export, cmd_export)
IMPORT = Subcommand("import", add_import, cmd_import)
