"""The ``airship`` command line.

Every error a user can cause (a bad flag, an unknown game or match, bad match options, a dead gateway or
Redis, a missing or corrupt file) is one line on stderr, ``airship: <what went wrong>``, and a non-zero
exit; never a traceback (``--log-level debug`` shows one for an error the CLI did not expect). Output
piped into a reader that stops early (``airship replay log.jsonl | head -1``) ends quietly.

One module per kind of command, each subcommand a :class:`~services.cli.common.Subcommand` listed in
:data:`SUBCOMMANDS`: :mod:`.play` (a match among bots), :mod:`.catalog` (games, wire schemas), :mod:`.serve`
(the service processes: worker, projector, gateway, archiver), :mod:`.player` (lobby, send, watch, chat
through the gateway), :mod:`.replay` (match logs), :mod:`.irc`, :mod:`.bots` (tournaments), :mod:`.bench`,
:mod:`.chaos`, :mod:`.stack` and :mod:`.ops` (parked matches, dead letters). :mod:`.common` holds what
they share.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from services.cli import bench, bothost, bots, catalog, chaos, irc, ops, play, player, ratings, replay, serve, stack
from services.cli.common import EXIT_ERROR, EXIT_FAILED, Handler, Subcommand
from services.games.errors import Rejected

# Every subcommand, in the order ``airship --help`` lists them.
SUBCOMMANDS: tuple[Subcommand, ...] = (
    play.PLAY, catalog.SCHEMAS, catalog.GAMES_LIST,
    serve.WORKER, serve.PROJECTOR, player.LOBBY, player.SEND, player.WATCH, bench.BENCH,
    replay.REPLAY, replay.EXPORT, replay.IMPORT, player.CHAT, irc.IRC, bots.TOURNAMENT, chaos.CHAOS,
    serve.GATEWAY, serve.ARCHIVER, bothost.BOTS, stack.STACK, ops.PARKED, ops.DEAD_LETTERS,
    ratings.RATINGS, ratings.LADDER, ratings.PLAYERS, ratings.ARENA,
)
COMMANDS: dict[str, Handler] = {command.name: command.run for command in SUBCOMMANDS}


class Parser(argparse.ArgumentParser):
    """argparse with its usage errors on one line: ``airship: play: argument --game: invalid choice...``."""

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix("airship").strip()
        where = f"{command}: " if command else ""
        self.exit(EXIT_ERROR, f"airship: {where}{' '.join(message.split())} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = Parser(prog="airship", description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--log-level", default="warning")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in SUBCOMMANDS:
        command.add(sub)
    return parser


def _redis_url(args: argparse.Namespace) -> str:
    """The Redis URL a command used, without its password."""
    from urllib.parse import urlsplit

    url = getattr(args, "redis", None) or os.environ.get("AIRSHIP_REDIS_URL") or ""
    try:
        parts = urlsplit(url)
        if parts.password:
            host = parts.hostname or ""
            netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
            url = parts._replace(netloc=netloc).geturl()
    except ValueError:
        return ""
    return url


def _validation_text(e: Any) -> str:
    errors = e.errors()
    first = errors[0] if errors else {"loc": (), "msg": str(e)}
    field = ".".join(map(str, first.get("loc", ()))) or e.title
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"invalid {e.title}: {field}: {first.get('msg')}{more}"


def describe_error(e: BaseException, args: argparse.Namespace) -> tuple[str, int] | None:
    """``(one line for people, exit code)`` for an error of a known family; None for a bug."""
    import redis
    from pydantic import ValidationError

    from services.client.errors import ClientError, Timeout

    if isinstance(e, Rejected):
        return e.reason, EXIT_ERROR
    if isinstance(e, Timeout):
        return str(e), EXIT_FAILED
    if isinstance(e, ClientError):
        return str(e), EXIT_ERROR
    if isinstance(e, ValidationError):
        return _validation_text(e), EXIT_ERROR
    if isinstance(e, redis.exceptions.ConnectionError | redis.exceptions.TimeoutError):  # (or a wrong password)
        url = _redis_url(args)
        return f"Redis{f' at {url}' if url else ''} cannot be reached: {e}", EXIT_FAILED
    if isinstance(e, redis.exceptions.RedisError):
        return f"Redis refused: {e}", EXIT_FAILED
    if isinstance(e, OSError):
        if e.filename is not None and e.strerror:
            return f"{e.filename}: {e.strerror}", EXIT_FAILED
        return str(e) or type(e).__name__, EXIT_FAILED
    if isinstance(e, ValueError):  # DecodeError, LogFileError, ReplayError, a malformed URL...
        return str(e), EXIT_ERROR
    return None


def say(message: str) -> None:
    print(f"airship: {' '.join(message.split())}", file=sys.stderr, flush=True)


def _stdout_gone() -> int:
    """The reader of stdout went away (``| head``): stop quietly, as the Python docs advise (further
    writes, including the flush at exit, go to /dev/null)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):  # a stdout without a file descriptor (under a test)
        pass
    return EXIT_FAILED


def main(argv: Sequence[str] | None = None) -> int:
    from services.logs import configure

    args = build_parser().parse_args(argv)
    configure(args.log_level)
    try:
        code = COMMANDS[args.command](args)
        sys.stdout.flush()  # (a reader that left shows here, not at exit)
        return code
    except BrokenPipeError:
        return _stdout_gone()
    except KeyboardInterrupt:
        return 130
    except Exception as e:
        known = describe_error(e, args)
        if known is None:
            if str(args.log_level).lower() == "debug":
                raise
            say(f"unexpected {type(e).__name__}: {e} (run with --log-level debug for the traceback)")
            return EXIT_FAILED
        message, code = known
        say(message)
        return code
