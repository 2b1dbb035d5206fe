"""Does an ``airship ...`` command line name a subcommand and options the CLI really has?"""

from __future__ import annotations

import argparse
import re
import shlex
from collections.abc import Mapping

from services.cli import build_parser
from services.games import GAMES

# Written in other branches at the same time as this one: missing here means "not merged yet".
PENDING_COMMANDS: set[str] = set()
PENDING_GAMES = {"moderne-zeiten", "modern-world", "mad-zeppelin"}


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _takes_value(action: argparse.Action | None) -> bool:
    return action is not None and action.nargs != 0


def check(argv: list[str]) -> tuple[list[str], list[str]]:
    """(problems, pending) for ``argv`` (without the leading ``airship``); nested subcommands are followed."""
    if not argv:
        return ["no subcommand"], []
    parser, path, rest = build_parser(), [], list(argv)
    while rest and (subs := _subparsers(parser)):
        name = rest.pop(0)
        if name not in subs:
            full = " ".join([*path, name])
            if full in PENDING_COMMANDS:
                return [], [full]
            if path:
                return [f"'{full}': {name} is not one of {sorted(subs)}"], []
            return [f"no subcommand '{name}'"], []
        parser, path = subs[name], [*path, name]
    command = " ".join(path)
    options = {s: a for a in parser._actions for s in a.option_strings}
    problems: list[str] = []
    pending: list[str] = []
    words: list[str] = []
    i = 0
    while i < len(rest):
        word = rest[i]
        if not word.startswith("-"):
            words.append(word)
        else:
            flag, _, inline = word.partition("=")
            action = options.get(flag)
            if action is None:
                problems.append(f"'{command}' has no option {flag}")
            elif _takes_value(action) and not inline:
                i += 1
                value = rest[i] if i < len(rest) else ""
                if flag == "--game" and value not in GAMES:
                    (pending if value in PENDING_GAMES else problems).append(f"game {value}")
        i += 1
    positionals = [a for a in parser._actions if not a.option_strings]
    for action, word in zip(positionals, words, strict=False):
        if action.choices is not None and word not in action.choices:
            problems.append(f"'{command} {word}': {word} is not one of {sorted(action.choices)}")
    return problems, pending


def invocations(command: list[str] | str, env: Mapping[str, str]) -> list[list[str]]:
    """The airship command lines in a container command: exec form, or ``sh -c`` scripts (one per
    line, ``$VAR`` expanded from the service's environment)."""
    if isinstance(command, str):
        command = shlex.split(command)
    if command and command[0] == "airship":
        return [command[1:]]
    if command[:2] == ["sh", "-c"]:
        found = []
        for line in command[2].replace("$$", "$").splitlines():
            match = re.search(r"\bairship\s+([^;&|]*)", line)
            if match:
                text = re.sub(r"\$\{?(\w+)\}?", lambda m: env.get(m.group(1), m.group(0)), match.group(1))
                found.append(shlex.split(text))
        return found
    return []
