"""What the subcommands share: the :class:`Subcommand` record, option parsers, the Redis flags and the
settings they give, and the check of match options before anything starts."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

from services.games import GAMES
from services.games.errors import BadOptions
from services.settings import Settings

Handler = Callable[[argparse.Namespace], int]
SubParsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"

EXIT_ERROR = 2  # a bad request: flags, options, an unknown match, a refused command
EXIT_FAILED = 1  # something outside did not work: Redis or the gateway down, a timeout, a file


@dataclass(frozen=True, slots=True)
class Subcommand:
    """One ``airship`` subcommand: ``add(sub)`` adds its parser, ``run(args)`` runs it and returns the exit
    code. :data:`services.cli.SUBCOMMANDS` lists them all."""

    name: str
    add: Callable[[SubParsers], None]
    run: Handler


def fail(message: str) -> int:
    """A bad request, said on one line: exit code 2."""
    print(f"airship: {message}", file=sys.stderr)
    return EXIT_ERROR


def parse_option(text: str) -> tuple[str, Any]:
    """``name=value`` of ``--option``/``-o``; the value is JSON when it parses as JSON, else the text."""
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"option '{text}' must look like name=value")
    name, raw = text.split("=", 1)
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    return name.strip(), value


def json_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"not JSON: {e}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("must be a JSON object")
    return value


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


def redis_flags(p: argparse.ArgumentParser) -> None:
    """``--redis``, ``--prefix``, ``--partitions``: the Redis deployment a command talks to."""
    p.add_argument("--redis", default=None, help="Redis URL (default: $AIRSHIP_REDIS_URL or the local server)")
    p.add_argument("--prefix", default=None, help="key prefix (default: $AIRSHIP_KEY_PREFIX or 'airship')")
    p.add_argument("--partitions", type=int, default=None, help="partitions P (default: $AIRSHIP_PARTITIONS or 16)")


def settings_from(args: argparse.Namespace) -> Settings:
    """The settings from the environment and the Redis flags, with the games of ``AIRSHIP_GAME_MODULES``
    registered."""
    settings = Settings.from_env(redis_url=args.redis, key_prefix=args.prefix, partitions=args.partitions,
                                 metrics_port=getattr(args, "metrics_port", None))
    settings.import_game_modules()
    return settings
