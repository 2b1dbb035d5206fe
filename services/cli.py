"""The ``airship`` command line.

Every error a user can cause (a bad flag, an unknown game or match, bad match options, a dead gateway or
Redis, a missing or corrupt file) is one line on stderr, ``airship: <what went wrong>``, and a non-zero
exit; never a traceback (``--log-level debug`` shows one for an error the CLI did not expect). Output
piped into a reader that stops early (``airship replay log.jsonl | head -1``) ends quietly.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

from services import cli_bots, cli_chat, cli_gateway, cli_ops, cli_ops2, cli_redis, cli_tools
from services.archive import cli as archive_cli
from services.games import GAMES
from services.games.errors import BadOptions, Rejected
from services.stack import cli as stack_cli

# Modules adding subcommands: each has ``add_parsers(sub)`` and ``COMMANDS`` (name -> handler).
EXTENSIONS = (cli_redis, cli_tools, cli_chat, cli_bots, cli_ops, cli_gateway, archive_cli, stack_cli, cli_ops2)


EXIT_ERROR = 2  # a bad request: flags, options, an unknown match, a refused command
EXIT_FAILED = 1  # something outside did not work: Redis or the gateway down, a timeout, a file


class Parser(argparse.ArgumentParser):
    """argparse with its usage errors on one line: ``airship: play: argument --game: invalid choice...``."""

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix("airship").strip()
        where = f"{command}: " if command else ""
        self.exit(EXIT_ERROR, f"airship: {where}{' '.join(message.split())} (see '{self.prog} --help')\n")


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
    parser: argparse.ArgumentParser = Parser(prog="airship", description=(__doc__ or "").split("\n\n")[0])
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


def check_options(game_name: str, options: Mapping[str, Any]) -> None:
    """Match options checked against the game's options model before anything starts: a bad one is a
    :class:`BadOptions` naming the option, on one line (a game not known here is left to its service)."""
    from pydantic import BaseModel, ValidationError

    model = getattr(GAMES.get(game_name), "Options", None)
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        return
    try:
        model.model_validate(dict(options))
    except ValidationError as e:
        title = getattr(GAMES[game_name], "title", game_name)
        error = e.errors()[0]
        name = ".".join(map(str, error["loc"])) or "options"
        if error["type"] == "extra_forbidden":
            known = ", ".join(model.model_fields) or "none"
            raise BadOptions(f"unknown option '{name}' for {title}; its options: {known}") from None
        if "input" in error and error["loc"]:
            name = f"{name}={json.dumps(error['input'], default=str)}"
        raise BadOptions(f"bad option {name} for {title}: {error['msg']}") from None


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


if __name__ == "__main__":
    sys.exit(main())
