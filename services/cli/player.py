"""The player commands, through the gateway (``--url URL``, default ``AIRSHIP_URL``): ``airship lobby
create|join|list``, ``send``, ``watch`` (a spectator) and ``chat`` (one seat from the terminal, in chat
commands). An unknown match, a wrong token or a dead gateway is one line on stderr and a non-zero exit.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from services.cli.common import Subcommand, SubParsers, check_options, fail, json_object, parse_option
from services.client.console import add_url, client_for, one_line_errors

TOKEN_ENV = "AIRSHIP_TOKEN"


def add_lobby(sub: SubParsers) -> None:
    lobby = sub.add_parser("lobby", help="create, join and list matches (through the gateway)").add_subparsers(
        dest="action", required=True)
    create = lobby.add_parser("create", help="set a match up; prints its summary as JSON")
    add_url(create)
    create.add_argument("--game", required=True)
    create.add_argument("--seats", type=int, required=True)
    create.add_argument("--option", "-o", action="append", type=parse_option, default=[], help="name=value")
    create.add_argument("--hide-log", action="store_true",
                        help="once finished, show the log as each seat saw it, not whole (reveal_log=false)")
    join = lobby.add_parser("join", help="take a seat; prints the seat and its token (shown once) as JSON")
    add_url(join)
    join.add_argument("match_id")
    join.add_argument("--seat", type=int, default=None)
    listing = lobby.add_parser("list", help="matches, newest first, one JSON line each")
    add_url(listing)
    listing.add_argument("--status", choices=["open", "running", "finished"], default=None)
    listing.add_argument("--game", default=None)
    listing.add_argument("--limit", type=int, default=100)


def add_send(sub: SubParsers) -> None:
    send = sub.add_parser("send", help="send one command through the gateway and print its result")
    add_url(send)
    send.add_argument("match_id")
    send.add_argument("--token", required=True, help="the seat token from 'lobby join'")
    send.add_argument("--seat", type=int, default=None, help="the seat (default: the one the token names)")
    send.add_argument("--type", required=True)
    send.add_argument("--body", type=json_object, default={}, help="JSON object")
    send.add_argument("--key", default=None, help="idempotency key: sending the same key again is safe")
    send.add_argument("--timeout-s", type=float, default=30.0)


def add_watch(sub: SubParsers) -> None:
    watch = sub.add_parser("watch", help="spectate a match: every new public view as a JSON line")
    add_url(watch)
    watch.add_argument("match_id")
    watch.add_argument("--after-version", type=int, default=0, help="resume after this version")
    watch.add_argument("--idle-timeout-s", type=float, default=600.0)


def add_chat(sub: SubParsers) -> None:
    p = sub.add_parser("chat", help="play one seat of a match from the terminal, in chat commands (through the "
                                    "gateway)")
    add_url(p)
    p.add_argument("--match", required=True, help="the match id")
    p.add_argument("--token-file", default=None, metavar="PATH",
                   help=f"a file holding the seat token from 'airship lobby join' (default: ${TOKEN_ENV}); the "
                        "token is never taken from the command line, where 'ps' shows it to everyone")
    p.add_argument("--seat", type=int, default=None, help="the seat (default: the one the token names)")
    p.add_argument("--token", dest="token_on_command_line", default=None, help=argparse.SUPPRESS)


@one_line_errors
def cmd_lobby(args: argparse.Namespace) -> int:
    if args.action == "create":  # a game known here: its options checked before the gateway is asked
        check_options(args.game, dict(args.option))
    with client_for(args) as client:
        if args.action == "create":
            summary = client.create_match(args.game, args.seats, dict(args.option), reveal_log=not args.hide_log)
            print(summary.model_dump_json())
        elif args.action == "join":
            seat, token = client.join(args.match_id, args.seat)
            print(json.dumps({"match_id": args.match_id, "seat": seat, "token": token}))
        else:
            for summary in client.matches(args.status, args.game, args.limit):
                print(summary.model_dump_json())
    return 0


@one_line_errors
def cmd_send(args: argparse.Namespace) -> int:
    from services.client.common import seat_of_token

    seat = args.seat if args.seat is not None else seat_of_token(args.token)
    if seat is None:
        raise ValueError("the token does not name its seat; give --seat")
    args.http_timeout_s = min(10.0, max(args.timeout_s, 1.0))  # a gateway that never answers: --timeout-s
    with client_for(args) as client:
        result = client.call(args.match_id, seat, args.token, args.type, args.body, args.timeout_s, args.key)
    print(result.model_dump_json(exclude_none=True))
    return 0 if result.status == "accepted" else 1


@one_line_errors
def cmd_watch(args: argparse.Namespace) -> int:
    from services.client.errors import Timeout

    with client_for(args) as client:
        try:
            for record in client.subscribe(args.match_id, "public", args.after_version, args.idle_timeout_s):
                print(json.dumps({"version": record.version, "view": record.view}), flush=True)
        except Timeout:
            print(f"airship: nothing new on match {args.match_id} for {args.idle_timeout_s:g}s", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            return 0
    return 0


@one_line_errors
def cmd_chat(args: argparse.Namespace) -> int:
    from services.chat.terminal import read_token, run_chat
    from services.client.common import seat_of_token

    if args.token_on_command_line is not None:
        return fail(f"--token is not taken: 'ps' would show it to every user. Put the token in a file (--token-file) "
                    f"or in {TOKEN_ENV}")
    token = read_token(args.token_file, os.environ.get(TOKEN_ENV))
    seat = args.seat if args.seat is not None else seat_of_token(token)
    if seat is None:
        return fail("the token does not name its seat; give --seat")
    with client_for(args) as client:
        return run_chat(client, args.match, seat, token, sys.stdin, sys.stdout, prompt=sys.stdin.isatty())


LOBBY = Subcommand("lobby", add_lobby, cmd_lobby)
SEND = Subcommand("send", add_send, cmd_send)
WATCH = Subcommand("watch", add_watch, cmd_watch)
CHAT = Subcommand("chat", add_chat, cmd_chat)
