"""The Redis backend: the event store and view store on Redis, with the command bus of
:mod:`services.pipeline.redis_streams`. Same interfaces and semantics as the in-process backend.

Layout (every key under ``<prefix>:{p}``, see :mod:`services.keys`):

- ``match:<id>:meta`` hash: match_id, game, seats, options (msgpack), status, version, created (ms),
  joined, reveal_log, ``cred:<seat>`` (sha256 of the seat token; the token itself is never stored), moved (ms,
  Redis's clock: when the match began or last appended events; the archiver ends it once idle too long).
- ``match:<id>:secret``: the seed, which only workers (and admin tools) may read.
- ``match:<id>:sent`` hash: command ids the gateway published, each with its command's digest (to tell "pending"
  from "never sent", and to refuse a key reused for another command: ``lua/publish.lua``); an id stays as long as
  its result stays in ``seen`` (the append drops both for a rejection past ``rejected_kept``).
- ``match:<id>:log`` stream, entry id ``<version>-0``, field ``e`` = the event as a compact positional array
  (``schemas.logentry``: no match id, version or field names; a command's id once); never trimmed.
- ``feed`` stream: every event of the partition (field ``e`` = packed EventEnvelope), trimmed to ~``feed_maxlen``.
- ``match:<id>:seen`` hash command id -> the result (``schemas.codec.pack_result``: a compact array without
  the match id; results stored before as a map are still read) — the at-most-once record, kept with the log:
  every command that appended events, and commands that changed nothing (rejections) only while the hash holds
  fewer than version + ``rejected_kept`` entries (a resent rejection no longer kept is decided again: it changed
  nothing, so deciding it again is safe);
  ``match:<id>:results`` stream of the same results for waiting clients, trimmed, expiring after the end.
- ``match:<id>:view:<key>`` hash {v: version, d: ViewRecord (``schemas.codec.pack_view``: msgpack, zlib)};
  ``match:<id>:updates`` stream, one entry per version written: {k: the view keys written at it,
  comma-separated, v: version}, trimmed.
- ``matches:<status>`` sorted sets of match ids by creation time, for listing.

Every multi-key write is one Lua script (``lua/*.lua``) over the keys of one partition, all passed in KEYS,
so it stays atomic and Redis Cluster compatible.

Snapshots: none. A worker or projector keeps states in its cache and reads only the log tail after the
version it holds (one XRANGE, usually empty); a cold start folds ``evolve`` over the whole log, which is
one XRANGE and thousands of pure function calls — milliseconds for a match of a few thousand events.
A stored snapshot would need a serialisation of every game's state (pickle is unsafe; a per-game codec
is a contract each game would have to keep) for a saving that only cold caches see.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, cast

import redis

from schemas.clock import TimeControl
from schemas.codec import pack, pack_obj, pack_result, pack_view, result_entry, unpack_obj, unpack_result, unpack_view
from schemas.envelopes import CommandResult, EventEnvelope, MatchMeta, ViewRecord
from schemas.logentry import LOOKBACK, Cause, first_cause, load_slice, log_and_feed, starts_inside_command
from services.faults import armed, fault_point
from services.keys import PROJECTORS_GROUP, Keys
from services.pipeline.direct import DirectClient
from services.pipeline.ports import (
    AppendItem,
    AppendOutcome,
    AppendStatus,
    Delivery,
    Joined,
    Pending,
    ReadAhead,
    Start,
)
from services.pipeline.redis_conn import connect as connect  # (re-exported: most callers import it from here)
from services.pipeline.redis_conn import is_cluster, queue_script, retry_noscript, wait_replicas
from services.pipeline.redis_streams import (
    FIELD,
    GroupStreams,
    RedisBus,
    StreamsReply,
    dead_letter,
    entries_of,
    text,
)
from services.settings import Settings

LUA_DIR = Path(__file__).with_name("lua")
Call = tuple[str, Sequence[AppendItem]]
"""A match's chain to append: its id and the items."""
STATUSES = ("open", "running", "finished")


@cache
def lua(name: str) -> str:
    return (LUA_DIR / f"{name}.lua").read_text()


def delete_prefix(r: redis.Redis, prefix: str) -> int:
    """Delete every key under ``prefix`` (SCAN + UNLINK); returns how many."""
    deleted = 0
    batch: list[bytes] = []
    for key in r.scan_iter(match=f"{prefix}:*", count=1000):
        batch.append(key)
        if len(batch) >= 500:
            deleted += int(r.unlink(*batch))
            batch = []
    if batch:
        deleted += int(r.unlink(*batch))
    return deleted


def expire_prefix(r: redis.Redis, prefix: str, seconds: int) -> None:
    pipe = r.pipeline(transaction=False)
    for key in r.scan_iter(match=f"{prefix}:*", count=1000):
        pipe.expire(key, seconds)
    pipe.execute()


def _meta_fields(meta: MatchMeta, created_ms: int) -> list[Any]:
    fields: dict[str, Any] = {"match_id": meta.match_id, "game": meta.game, "seats": meta.seats,
                              "status": meta.status, "options": pack_obj(meta.options), "created": created_ms,
                              "joined": len(meta.credential_hashes), "reveal_log": int(meta.reveal_log)}
    if meta.clock is not None:
        fields["clock"] = meta.clock.model_dump_json()
    fields.update({f"cred:{seat}": h for seat, h in meta.credential_hashes.items()})
    return [x for pair in fields.items() for x in pair]


def _meta_from(reply: object) -> MatchMeta:
    h = cast(dict[bytes, bytes], reply)
    creds = {int(k[5:]): v.decode() for k, v in h.items() if k.startswith(b"cred:")}
    return MatchMeta(match_id=h[b"match_id"].decode(), game=h[b"game"].decode(), seats=int(h[b"seats"]),
                     status=h[b"status"].decode(), options=unpack_obj(h[b"options"]), credential_hashes=creds,
                     reveal_log=h.get(b"reveal_log", b"1") != b"0",
                     clock=TimeControl.model_validate_json(h[b"clock"]) if b"clock" in h else None)


def _outcomes(replies: Any, items: Sequence[AppendItem], match_id: str) -> list[AppendOutcome]:
    """The chain script's replies, one per item tried."""
    out = []
    for reply, item in zip(replies, items, strict=False):
        status, version = AppendStatus(text(reply[0])), int(reply[1])
        if status is AppendStatus.DUPLICATE:
            out.append(AppendOutcome(status, version, unpack_result(reply[2], match_id, item.result.command_id)))
        else:
            out.append(AppendOutcome(status, version, item.result if status is AppendStatus.APPENDED else None))
    return out


class NotReplicated(redis.exceptions.RedisError):
    """An append that did not reach the replicas asked for (``append_replicas``) in time."""


class RedisStore:
    """EventStore and ViewStore on Redis."""

    def __init__(self, r: redis.Redis, keys: Keys, settings: Settings) -> None:
        self._r = r
        self._keys = keys
        self._settings = settings
        self.partitions = keys.partitions
        self._feed = GroupStreams(r, [keys.feed(p) for p in range(keys.partitions)], PROJECTORS_GROUP)
        self._create = r.register_script(lua("create_match"))
        self._join = r.register_script(lua("join"))
        self._append = r.register_script(lua("append"))
        self._append_keys_cache: dict[str, list[str]] = {}
        self._cluster = is_cluster(r)
        self._put_views = r.register_script(lua("put_views"))
        self._purge = r.register_script(lua("purge"))

    def _xread(self, key: str, after: str, block_ms: int) -> list[tuple[str, dict[bytes, bytes]]]:
        reply = cast(StreamsReply, self._r.xread({key: after}, block=block_ms if block_ms > 0 else None))
        return [(text(i), fields) for _, entries in reply or [] for i, fields in entries]

    def _end(self, key: str) -> str:
        newest = entries_of(self._r.xrevrange(key, count=1))
        return text(newest[0][0]) if newest else "0"

    # -- matches ---------------------------------------------------------------------------------
    def create_match(self, meta: MatchMeta, events: Sequence[EventEnvelope], fields: Sequence[Any] = ()) -> bool:
        k, mid = self._keys, meta.match_id
        created_ms = int(time.time() * 1000)
        fields = [*_meta_fields(meta, created_ms), *fields]
        keys = [k.meta(mid), k.log(mid), k.feed(k.partition(mid)), k.match_matches(mid, meta.status)]  # secret: see lua
        seed = "" if meta.seed is None else meta.seed
        args = [self._settings.feed_maxlen, mid, created_ms, seed, len(fields), *fields, *log_and_feed(events)]
        return bool(self._create(keys=keys, args=args))

    def meta(self, match_id: str) -> MatchMeta | None:
        """The metadata without the seed (see :meth:`seed`)."""
        h = self._r.hgetall(self._keys.meta(match_id))
        return _meta_from(h) if h else None

    def seed(self, match_id: str) -> int | None:
        """The match's secret seed (workers and admin tools only)."""
        raw = self._r.get(self._keys.secret(match_id))
        return int(raw) if raw else None

    def claim_seat(self, match_id: str, seat: int, credential_hash: str) -> MatchMeta | None:
        joined = self.join(match_id, seat, credential_hash)
        return self.meta(match_id) if joined.outcome == "joined" else None

    def join(self, match_id: str, seat: int, credential_hash: str, player: str | None = None,
             until_ms: int = 0, start: Start | None = None) -> Joined:
        """``match.join`` (``lua/join.lua``): ``seat`` gets the hash, if the caller may take it."""
        k = self._keys
        p = k.partition(match_id)
        keys = [k.meta(match_id), *(k.match_matches(match_id, s) for s in STATUSES), k.seat_players(p)]
        args: list[Any] = [seat, credential_hash, self._settings.updates_maxlen, player or "", until_ms]
        if start is not None:
            keys += [k.log(match_id), k.feed(p), k.clocks(p)]
            args += [start.event.version, start.deadline, self._settings.feed_maxlen, *log_and_feed([start.event])]
        reply = cast(list[Any], self._join(keys=keys, args=args))
        outcome = text(reply[0])
        return Joined(outcome, int(reply[1]) if outcome == "joined" else None)

    def list_matches(self, status: str | None = None, limit: int = 100) -> list[MatchMeta]:
        """The first ``limit`` matches (by creation time) with that status, from every partition."""
        statuses = [status] if status else list(STATUSES)
        pipe = self._r.pipeline(transaction=False)
        for p in range(self.partitions):
            for s in statuses:
                pipe.zrange(self._keys.matches(p, s), 0, limit - 1, withscores=True)
        ranked = sorted((score, text(mid)) for reply in pipe.execute() for mid, score in reply)[:limit]
        for _, mid in ranked:
            pipe.hgetall(self._keys.meta(mid))
        return [_meta_from(h) for h in pipe.execute() if h]

    def purge(self, match_id: str, status: str, version: int, open_ttl_s: float) -> str:
        """``match.purge`` (``lua/purge.lua``): remove the match's keys and set entries if it is finished at
        ``version`` (``status`` 'finished') or open and created more than ``open_ttl_s`` ago ('open'); else
        nothing. Returns the script's outcome ('deleted', 'gone', 'not_finished', ...)."""
        k, p = self._keys, self._keys.partition(match_id)
        seats = int(cast(bytes | None, self._r.hget(k.meta(match_id), "seats")) or 0)
        others = [k.secret(match_id), k.seen(match_id), k.sent(match_id), k.results(match_id), k.updates(match_id),
                  k.gw(match_id), k.view(match_id, "public"), *(k.view(match_id, str(s)) for s in range(seats))]
        keys = [k.meta(match_id), k.log(match_id), k.matches(p, "finished")]
        args: list[str | int] = [match_id, status, version, int(open_ttl_s * 1000), k.matches(p, "open"),
                                 k.archive_pending(p), *others]
        return text(self._purge(keys=keys, args=args))

    def version(self, match_id: str) -> int:
        return int(self._r.hget(self._keys.meta(match_id), "version") or 0)

    def due_clocks(self, partitions: Sequence[int] | None, now_ms: int, limit: int) -> list[tuple[str, int]]:
        """One pipelined ZRANGEBYSCORE per partition of the clocks sorted sets (``{p}:clocks``)."""
        wanted = range(self.partitions) if partitions is None else partitions
        pipe = self._r.pipeline(transaction=False)
        for partition in wanted:
            pipe.zrangebyscore(self._keys.clocks(partition), "-inf", now_ms, start=0, num=limit, withscores=True)
        due = [(text(mid), int(score)) for reply in pipe.execute() for mid, score in reply]
        return sorted(due, key=lambda d: d[1])

    def announce(self, result: CommandResult) -> None:
        live = self._keys.live(self._keys.partition(result.match_id))
        self._r.xadd(live, {"m": result.match_id, "c": result.command_id, "r": pack_result(result, with_id=False)},
                     maxlen=self._settings.live_maxlen, approximate=True)

    def read_log(self, match_id: str, after: int = 0, limit: int | None = None) -> list[EventEnvelope]:
        """Events as the current schema (``schemas.logentry``): entries written in an older shape are upcast on
        read; a slice starting inside a command looks back for the command's id."""
        entries = entries_of(self._r.xrange(self._keys.log(match_id), min=f"{after + 1}-0", count=limit))
        inherited = self._cause_before(match_id, after) if starts_inside_command(entries) else None

        def game() -> str | None:
            meta = self.meta(match_id)
            return meta.game if meta else None

        return load_slice(match_id, entries, game, inherited)[0]

    def _cause_before(self, match_id: str, version: int) -> Cause | None:
        top = f"{version}-0"
        while entries := entries_of(self._r.xrevrange(self._keys.log(match_id), max=top, min="-", count=LOOKBACK)):
            found, cause = first_cause(unpack_obj(fields[FIELD]) for _, fields in entries)
            if found:
                return cause
            top = f"({text(entries[-1][0])}"
        return None

    def append(self, match_id: str, expected_version: int, events: Sequence[EventEnvelope], result: CommandResult,
               finished: bool = False, deadline: int = -1) -> AppendOutcome:
        item = AppendItem(expected_version, events, result, finished, deadline)
        if self._settings.append_replicas > 0:
            return self._append_replicated({match_id: [item]}, strict=False)[match_id][0]
        calls = [(match_id, [item])]
        keys, args = self._group_call(calls, strict=False)
        return self._sorted([calls], [self._append(keys=keys, args=args)])[match_id][0]

    def append_chains(self, chains: Mapping[str, Sequence[AppendItem]],
                      ahead: ReadAhead | None = None) -> dict[str, list[AppendOutcome]]:
        """Every match's chain in one script call per group of matches (:meth:`_groups`), the calls pipelined in
        one round trip; ``ahead`` after them, in the same pipeline (not when the appends wait for replicas: that
        pipeline may be sent twice)."""
        if self._settings.append_replicas > 0:
            return self._append_replicated(chains, strict=True)
        calls = [(match_id, items) for match_id, items in chains.items() if items]
        halves = [calls]
        if len(calls) > 1 and armed("between_appends"):
            # Test only: send the first half and die, as a worker killed while its pipeline was on the wire.
            halves = [calls[:len(calls) // 2], calls[len(calls) // 2:]]
        out: dict[str, list[AppendOutcome]] = {}
        for h, half in enumerate(halves):
            if h:
                fault_point("between_appends")
            groups = self._groups(half)
            sent = [self._group_call(group, strict=True) for group in groups]
            pipe = self._r.pipeline(transaction=False)
            for keys, args in sent:
                queue_script(pipe, self._append, keys, args)
            carried = ahead if h == len(halves) - 1 else None
            if carried is not None:
                carried.queue(pipe)
            try:
                replies = pipe.execute(raise_on_error=False)
            except Exception:
                if carried is not None:
                    carried.failed()
                raise
            if carried is not None:
                carried.take(replies[len(sent):])
            out.update(self._sorted(groups, retry_noscript(replies[:len(sent)], self._append, sent)))
        return out

    def _groups(self, calls: Sequence[Call]) -> list[list[Call]]:
        """The matches whose chains go in one script call: all of them on one server; on Redis Cluster those of
        each partition (a script's keys must share a slot)."""
        if not self._cluster:
            return [list(calls)] if calls else []
        by_partition: dict[int, list[Call]] = {}
        for call in calls:
            by_partition.setdefault(self._keys.partition(call[0]), []).append(call)
        return list(by_partition.values())

    def _sorted(self, groups: Sequence[Sequence[Call]], replies: Sequence[Any]) -> dict[str, list[AppendOutcome]]:
        """The outcomes per match from the script calls' replies (one per group, one list per match in it)."""
        out: dict[str, list[AppendOutcome]] = {}
        for group, reply in zip(groups, replies, strict=True):
            if isinstance(reply, redis.ResponseError):
                raise reply
            for (match_id, items), chain in zip(group, reply, strict=True):
                if chain == b"unknown":
                    raise KeyError(f"unknown match {match_id}")
                out[match_id] = _outcomes(chain, items, match_id)
        return out

    def _append_replicated(self, chains: Mapping[str, Sequence[AppendItem]],
                           strict: bool) -> dict[str, list[AppendOutcome]]:
        """The appends, then ``WAIT`` on each node written (same pipeline, same connections): only when every
        node has ``append_replicas`` replicas with the writes are the outcomes returned; else
        :class:`NotReplicated` is raised and the worker acknowledges nothing of the batch (its commands are
        delivered again; the at-most-once record answers those that did survive)."""
        s = self._settings
        groups = self._groups([(match_id, items) for match_id, items in chains.items() if items])
        sent = [self._group_call(group, strict=strict) for group in groups]
        for _ in range(2):
            pipe = self._r.pipeline(transaction=False)
            for keys, args in sent:
                queue_script(pipe, self._append, keys, args)
            wait_replicas(self._r, [keys[0] for keys, _ in sent], s.append_replicas, s.append_wait_ms, pipe)
            replies = pipe.execute(raise_on_error=False)
            appended, waits = replies[:len(sent)], replies[len(sent):]
            if not any(isinstance(r, redis.exceptions.NoScriptError) for r in appended):
                break
            # A node that had not loaded the script (a replica just promoted): load it everywhere and send the
            # batch again; the calls that did run answer as duplicates with their results.
            self._r.script_load(lua("append"))
        else:
            raise NotReplicated("a node did not run the append script; the batch is delivered again")
        short = [w for w in waits if isinstance(w, Exception) or int(w) < s.append_replicas]
        if short:
            raise NotReplicated(f"appended, but not on {s.append_replicas} replica(s) within {s.append_wait_ms} ms "
                                f"({short}); acknowledged once delivered again")
        return self._sorted(groups, appended)

    def _append_keys(self, match_id: str) -> list[str]:
        keys = self._append_keys_cache.get(match_id)
        if keys is None:
            if len(self._append_keys_cache) >= 10_000:
                self._append_keys_cache.clear()
            k = self._keys
            keys = self._append_keys_cache[match_id] = [
                k.meta(match_id), k.log(match_id), k.seen(match_id), k.results(match_id),
                k.feed(k.partition(match_id)), k.match_matches(match_id, "running"),
                k.match_matches(match_id, "finished"), k.sent(match_id), k.live(k.partition(match_id))]
        return keys

    def _group_call(self, group: Sequence[Call], strict: bool) -> tuple[list[str], list[Any]]:
        """The keys and arguments of one script call appending ``group``'s chains (``lua/append.lua``)."""
        s = self._settings
        keys: list[str] = []
        args: list[Any] = [s.feed_maxlen, s.results_maxlen, s.results_ttl_s, s.live_maxlen, s.rejected_kept]
        for match_id, items in group:
            keys += self._append_keys(match_id)
            chain: list[Any] = []
            for item in items:
                chain += [item.result.command_id, item.expected_version, pack_result(item.result, with_id=False),
                          int(item.finished), int(strict), item.deadline, len(item.events),
                          *log_and_feed(item.events)]
            args += [len(chain), *chain]
        return keys, args

    def result(self, match_id: str, command_id: str) -> CommandResult | None:
        data = self._r.hget(self._keys.seen(match_id), command_id)
        return unpack_result(cast(bytes, data), match_id, command_id) if data is not None else None

    def read_results(self, match_id: str, after: str, block_ms: int) -> list[tuple[str, CommandResult]]:
        entries = self._xread(self._keys.results(match_id), after, block_ms)
        return [(i, result_entry(fields, match_id)) for i, fields in entries]

    def results_end(self, match_id: str) -> str:
        return self._end(self._keys.results(match_id))

    # -- feed ------------------------------------------------------------------------------------
    def read_feed(self, consumer: str, count: int, block_ms: int) -> list[Delivery]:
        return self._feed.read(consumer, count, block_ms)

    def ack_feed(self, delivery: Delivery) -> None:
        self._feed.ack(delivery)

    def claim_stale_feed(self, consumer: str, min_idle_ms: int, count: int) -> list[Delivery]:
        return self._feed.claim(consumer, min_idle_ms, count)

    def feed_lag(self) -> dict[int, int]:
        return self._feed.lag()

    def feed_pending(self) -> dict[int, Pending]:
        return self._feed.pending()

    def dead_letter_feed(self, delivery: Delivery, error: str) -> None:
        partition = self._feed.names.index(delivery.stream)
        dead_letter(self._r, self._keys.feed_dead(partition), delivery, error, PROJECTORS_GROUP)

    def feed_dead_letters(self, partition: int, count: int = 100) -> list[tuple[bytes, str]]:
        """The newest feed dead letters of a partition: (entry bytes, error)."""
        entries = entries_of(self._r.xrevrange(self._keys.feed_dead(partition), count=count))
        return [(fields.get(FIELD, b""), text(fields.get(b"error", b""))) for _, fields in entries]

    # -- parked matches --------------------------------------------------------------------------
    def park(self, match_id: str, error: str, deliveries: int) -> bool:
        record = json.dumps({"error": error, "at": round(time.time(), 3), "deliveries": deliveries})
        return bool(self._r.hsetnx(self._keys.parked(self._keys.partition(match_id)), match_id, record))

    def parked_among(self, match_ids: Sequence[str]) -> set[str]:
        ids = list(dict.fromkeys(match_ids))
        if not ids:
            return set()
        pipe = self._r.pipeline(transaction=False)
        for match_id in ids:
            pipe.hexists(self._keys.parked(self._keys.partition(match_id)), match_id)
        return {m for m, parked in zip(ids, pipe.execute(), strict=True) if parked}

    def parked_matches(self) -> dict[str, dict[str, str]]:
        pipe = self._r.pipeline(transaction=False)
        for p in range(self.partitions):
            pipe.hgetall(self._keys.parked(p))
        out: dict[str, dict[str, str]] = {}
        for reply in pipe.execute():
            for match_id, raw in cast(dict[bytes, bytes], reply).items():
                try:
                    record = json.loads(raw)
                except ValueError:
                    record = {"error": text(raw)}
                out[text(match_id)] = {k: str(v) for k, v in record.items()}
        return out

    def parked_count(self) -> int:
        pipe = self._r.pipeline(transaction=False)
        for p in range(self.partitions):
            pipe.hlen(self._keys.parked(p))
        return sum(int(n) for n in pipe.execute())

    def unpark(self, match_id: str) -> bool:
        k = self._keys
        if not self._r.hdel(k.parked(k.partition(match_id)), match_id):
            return False
        version = self.version(match_id)
        if version:  # the newest event, whole, on the feed again: the projector catches the match up from it
            newest = self.read_log(match_id, after=version - 1)
            self._r.xadd(k.feed(k.partition(match_id)), {FIELD: pack(newest[-1])},
                         maxlen=self._settings.feed_maxlen, approximate=True)
        return True

    def forget_feed_consumer(self, consumer: str) -> None:
        self._feed.forget(consumer)

    # -- views -----------------------------------------------------------------------------------
    def put_views(self, match_id: str, records: Sequence[ViewRecord]) -> None:
        if not records:
            return
        k = self._keys
        keys = [*(k.view(match_id, r.key) for r in records), k.updates(match_id), k.live(k.partition(match_id))]
        args: list[Any] = [self._settings.updates_maxlen, self._settings.live_maxlen, match_id]
        for record in records:
            args += [record.key, record.version, pack_view(record)]
        self._put_views(keys=keys, args=args)

    def get_view(self, match_id: str, key: str) -> ViewRecord | None:
        data = self._r.hget(self._keys.view(match_id, key), "d")
        return unpack_view(cast(bytes, data)) if data is not None else None

    def read_updates(self, match_id: str, after: str, block_ms: int) -> list[tuple[str, str, int]]:
        entries = self._xread(self._keys.updates(match_id), after, block_ms)
        return [(i, key, int(fields[b"v"])) for i, fields in entries for key in fields[b"k"].decode().split(",")]

    def updates_end(self, match_id: str) -> str:
        return self._end(self._keys.updates(match_id))


class RedisBackend:
    """Command bus, event store and view store on one Redis, under ``settings.key_prefix``."""

    def __init__(self, settings: Settings, r: redis.Redis | None = None) -> None:
        self.settings = settings
        self.redis = r or connect(settings.redis_url)
        keys = settings.keys
        self.bus = RedisBus(self.redis, keys)
        self.store = RedisStore(self.redis, keys, settings)
        self.views = self.store

    def close(self) -> None:
        self.redis.close()


def redis_client_for_play(url: str) -> tuple[DirectClient, Callable[[], None] | None]:
    """A client for ``airship play --redis URL``: a worker and a projector run as threads of this process
    against a fresh key prefix; the returned cleanup stops them and lets the match's keys expire (an hour
    later, so the log can still be saved)."""
    from services.pipeline.redis_local import LocalServices

    settings = Settings.from_env(redis_url=url)
    settings = settings.with_(key_prefix=f"{settings.key_prefix}-play-{uuid.uuid4().hex[:8]}")
    services = LocalServices(settings).start()
    return DirectClient(RedisBackend(settings), poll_ms=settings.block_ms), services.stop
