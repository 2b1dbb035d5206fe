"""The checks at the end of a chaos run, each a count that must be zero.

- lost commands: a command a client sent that has no recorded result;
- applied twice: a command id whose events are not one contiguous version range, or whose accepted result
  does not name exactly those events;
- version gaps: a log whose versions are not 1..n, or whose meta version is not n;
- views different from a replay: a stored view record (public or a seat's, with its legal commands) that
  differs from :func:`build_views` on the state replayed from the log;
- acknowledged events lost: an accepted result a client received whose events are not in the log
  (counted separately for results received before a Redis restart);
- leaked credentials: a seat credential found in the stored data (but the command streams, which carry
  them until the commands are handled) or the service logs.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from schemas.codec import unpack_result
from schemas.envelopes import CommandResult, EventEnvelope
from services.games.abandon import abandon_rule
from services.games.base import replay
from services.games.clock import match_game
from services.pipeline.projector import build_views
from services.pipeline.redis_backend import RedisBackend
from services.pipeline.redis_streams import entries_of
from services.pipeline.states import Loaded, to_event

TOKEN = re.compile(rb"[A-Za-z0-9_-]{32,}")  # (credentials of 32 characters or more)


@dataclass
class Findings:
    lost_commands: int = 0
    applied_twice: int = 0
    version_gaps: int = 0
    views_differing: int = 0
    acked_lost: int = 0
    acked_before_restart: int = 0
    acked_lost_over_restart: int = 0
    leaked_credentials: int = 0
    dead_letters: int = 0
    events_checked: int = 0


def check(backend: RedisBackend, sent: Collection[tuple[str, str]], received: Iterable[tuple[CommandResult, int]],
          restarts: int, credentials: Iterable[str], log_files: Iterable[Path]) -> Findings:
    found = Findings()
    results = _recorded_results(backend, sent)
    found.lost_commands = sum(1 for key in sent if results.get(key) is None)
    logs: dict[str, list[EventEnvelope]] = {}
    for match_id in sorted({m for m, _ in sent}):
        log = backend.store.read_log(match_id)
        logs[match_id] = log
        found.events_checked += len(log)
        if [e.version for e in log] != list(range(1, len(log) + 1)) or backend.store.version(match_id) != len(log):
            found.version_gaps += 1
        found.applied_twice += _applied_twice(log, {c: r for (m, c), r in results.items() if m == match_id})
        found.views_differing += _views_differing(backend, match_id, log)
    for result, epoch in received:
        if result.status != "accepted":
            continue
        before_restart = epoch < restarts
        found.acked_before_restart += before_restart
        if not _events_present(logs.get(result.match_id, []), result):
            found.acked_lost += 1
            found.acked_lost_over_restart += before_restart
    found.dead_letters = sum(int(backend.redis.xlen(backend.settings.keys.dead(p)))
                             for p in range(backend.settings.partitions))
    found.leaked_credentials = _leaks(backend, set(credentials), log_files)
    return found


def _recorded_results(backend: RedisBackend,
                      sent: Collection[tuple[str, str]]) -> dict[tuple[str, str], CommandResult | None]:
    pipe = backend.redis.pipeline(transaction=False)
    ids = sorted(sent)
    for match_id, command_id in ids:
        pipe.hget(backend.settings.keys.seen(match_id), command_id)
    return {(mid, cid): unpack_result(raw, mid, cid) if raw is not None else None
            for (mid, cid), raw in zip(ids, pipe.execute(), strict=True)}


def _applied_twice(log: list[EventEnvelope], results: dict[str, CommandResult | None]) -> int:
    versions: dict[str, list[int]] = defaultdict(list)
    for event in log:
        if event.command_id is not None:
            versions[event.command_id].append(event.version)
    bad = 0
    for command_id, vs in versions.items():
        contiguous = vs == list(range(vs[0], vs[0] + len(vs)))
        result = results.get(command_id)
        named = result is None or (result.status == "accepted" and result.version == vs[-1]
                                   and result.events == len(vs))
        bad += not (contiguous and named)
    return bad


def _events_present(log: list[EventEnvelope], result: CommandResult) -> bool:
    first = result.version - result.events + 1
    if result.events == 0:
        return True
    if first < 1 or result.version > len(log):
        return False
    return all(log[v - 1].command_id == result.command_id for v in range(first, result.version + 1))


def _views_differing(backend: RedisBackend, match_id: str, log: list[EventEnvelope]) -> int:
    meta = backend.store.meta(match_id)
    if meta is None:
        return 1
    game = match_game(meta.game)
    loaded = Loaded(game, meta, len(log), replay(game, [to_event(e) for e in log]),
                    abandon_rule=abandon_rule(log[-1].type, log[-1].body) if log else None)
    differing = 0
    for expected in build_views(loaded):
        stored = backend.views.get_view(match_id, expected.key)
        differing += stored != expected
    return differing


def _leaks(backend: RedisBackend, credentials: set[str], log_files: Iterable[Path]) -> int:
    """Credential-shaped tokens in every stored value under the prefix and in the service logs."""
    wanted = {c.encode() for c in credentials}
    seen: set[bytes] = set()
    r = backend.redis
    for key in r.scan_iter(match=f"{backend.settings.key_prefix}:*", count=1000):
        if key.endswith(b":commands"):
            continue  # the transport: commands carry their credential until handled, then are trimmed
        kind = r.type(key)
        if kind == b"stream":
            blobs = [v for _, fields in entries_of(r.xrange(key)) for v in fields.values()]
        elif kind == b"hash":
            blobs = list(cast(dict[bytes, bytes], r.hgetall(key)).values())
        elif kind == b"zset":
            blobs = cast(list[bytes], r.zrange(key, 0, -1))
        else:
            blobs = [r.dump(key) or b""]
        for blob in blobs:
            seen.update(_found(blob, wanted))
    for path in log_files:
        seen.update(_found(path.read_bytes(), wanted))
    return len(seen)


def _found(data: bytes, wanted: set[bytes]) -> set[bytes]:
    """Those of ``wanted`` (credentials, of one length or several) in ``data``."""
    return {hit for size in {len(w) for w in wanted} for hit in tokens_in(data, size) & wanted}


def tokens_in(data: bytes, size: int = 32) -> set[bytes]:
    """Every ``size``-character window of every run of URL-safe characters (a credential from
    ``secrets.token_urlsafe(24)`` is 32 of them, wherever it sits in a longer run)."""
    return {run[i:i + size] for run in TOKEN.findall(data) for i in range(len(run) - size + 1)}
