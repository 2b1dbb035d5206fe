"""Operator commands for what the pipeline set aside (see docs/runbooks/dead-letters.md):

- ``airship parked list``: matches whose views the projector gave up building, with the error;
- ``airship parked retry MATCH... | --all``: unpark them; a projector rebuilds their views from the log
  (and parks them again if the views still fail);
- ``airship dead-letters list [--feed]``: commands (``{p}:dead``) or feed entries (``{p}:feed-dead``) that
  were given up, one JSON line each;
- ``airship dead-letters requeue [--feed] ID... | --all``: put them back on their stream and remove them
  from the dead letters (an entry without a payload cannot be requeued: drop it);
- ``airship dead-letters drop [--feed] ID... | --all``: remove them.

They talk to Redis (``--redis URL``, default ``AIRSHIP_REDIS_URL``) with a user that may read and write
those keys (the ``admin`` user of infra/redis/users.acl). Output is JSON lines on stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from typing import Any

from services.cli.common import Subcommand, SubParsers, redis_flags, settings_from

LIST_LIMIT = 100


def add_parked(sub: SubParsers) -> None:
    parked = sub.add_parser("parked", help="matches whose views the projector gave up building").add_subparsers(
        dest="action", required=True)
    redis_flags(parked.add_parser("list", help="every parked match with its error, one JSON line each"))
    retry = parked.add_parser("retry", help="unpark matches: a projector rebuilds their views from the log")
    redis_flags(retry)
    retry.add_argument("match_ids", nargs="*", metavar="MATCH")
    retry.add_argument("--all", action="store_true", help="every parked match")


def add_dead_letters(sub: SubParsers) -> None:
    dead = sub.add_parser("dead-letters", help="list, requeue or drop dead-lettered commands or feed entries"
                          ).add_subparsers(dest="action", required=True)
    listing = dead.add_parser("list", help="newest first, one JSON line each")
    requeue = dead.add_parser("requeue", help="put entries back on their stream, out of the dead letters")
    drop = dead.add_parser("drop", help="remove entries from the dead letters")
    for p in (listing, requeue, drop):
        redis_flags(p)
        p.add_argument("--feed", action="store_true", help="the feed dead letters (default: the commands')")
        p.add_argument("--partition", type=int, default=None, help="one partition only")
    listing.add_argument("--limit", type=int, default=LIST_LIMIT, help="per partition")
    for p in (requeue, drop):
        p.add_argument("ids", nargs="*", metavar="ID", help="as 'list' prints them: <partition>/<entry id>")
        p.add_argument("--all", action="store_true", help="every dead letter (of --partition, if given)")


def _backend(args: argparse.Namespace) -> Any:
    from services.pipeline.redis_backend import RedisBackend

    return RedisBackend(settings_from(args))


def _line(obj: dict[str, Any]) -> None:
    print(json.dumps(obj, default=str), flush=True)


def cmd_parked(args: argparse.Namespace) -> int:
    backend = _backend(args)
    try:
        store, keys = backend.store, backend.settings.keys
        parked = store.parked_matches()
        if args.action == "list":
            for match_id, record in sorted(parked.items()):
                _line({"match_id": match_id, "partition": keys.partition(match_id), **record})
            return 0
        if not args.all and not args.match_ids:
            print("airship: name the matches to retry, or --all", file=sys.stderr)
            return 2
        missing = 0
        for match_id in sorted(parked) if args.all else args.match_ids:
            retried = store.unpark(match_id)
            missing += not retried
            _line({"match_id": match_id, "retried": retried} | ({} if retried else {"reason": "not parked"}))
        return 1 if missing else 0
    finally:
        backend.close()


def _describe(data: bytes) -> dict[str, Any]:
    from schemas.codec import DecodeError, unpack_obj

    if not data:
        return {"payload": None}
    try:
        return {"payload": unpack_obj(data)}
    except DecodeError:
        return {"payload_hex": data[:256].hex(), "payload_bytes": len(data)}


def _dead_entries(backend: Any, args: argparse.Namespace,
                  count: int | None) -> Iterator[tuple[int, str, dict[bytes, bytes]]]:
    from services.pipeline.redis_streams import entries_of, text

    keys = backend.settings.keys
    partitions = [args.partition] if args.partition is not None else range(keys.partitions)
    for p in partitions:
        stream = keys.feed_dead(p) if args.feed else keys.dead(p)
        for entry_id, fields in entries_of(backend.redis.xrevrange(stream, count=count)):
            yield p, text(entry_id), fields


def cmd_dead_letters(args: argparse.Namespace) -> int:
    from services.pipeline.redis_streams import FIELD, text

    backend = _backend(args)
    try:
        keys, r = backend.settings.keys, backend.redis
        kind = "feed" if args.feed else "commands"
        if args.action == "list":
            for p, entry_id, fields in _dead_entries(backend, args, args.limit):
                _line({"id": f"{p}/{entry_id}", "stream": kind, "partition": p,
                       "error": text(fields.get(b"error", b"")), "entry": text(fields.get(b"entry", b"")),
                       "deliveries": int(fields.get(b"deliveries", b"0") or 0), **_describe(fields.get(FIELD, b""))})
            return 0
        if not args.all and not args.ids:
            print(f"airship: name the dead letters to {args.action} (as 'list' prints them), or --all",
                  file=sys.stderr)
            return 2
        wanted = None if args.all else set(args.ids)
        found: set[str] = set()
        failures = 0
        for p, entry_id, fields in _dead_entries(backend, args, None):
            ident = f"{p}/{entry_id}"
            if wanted is not None and ident not in wanted:
                continue
            found.add(ident)
            dead_stream = keys.feed_dead(p) if args.feed else keys.dead(p)
            data = fields.get(FIELD, b"")
            if args.action == "requeue" and not data:
                failures += 1
                _line({"id": ident, "requeued": False, "reason": "no payload to requeue; drop it"})
                continue
            pipe = r.pipeline(transaction=True)
            if args.action == "requeue":
                target = keys.feed(p) if args.feed else keys.commands(p)
                pipe.xadd(target, {FIELD: data})
            pipe.xdel(dead_stream, entry_id)
            replies = pipe.execute()
            if args.action == "requeue":
                _line({"id": ident, "requeued": True, "new_entry": text(replies[0])})
            else:
                _line({"id": ident, "dropped": True})
        for ident in sorted((wanted or set()) - found):
            failures += 1
            _line({"id": ident, "error": "no such dead letter"})
        return 1 if failures else 0
    finally:
        backend.close()


PARKED = Subcommand("parked", add_parked, cmd_parked)
DEAD_LETTERS = Subcommand("dead-letters", add_dead_letters, cmd_dead_letters)
