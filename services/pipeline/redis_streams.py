"""Consumer groups over the P partition streams of Redis: the command bus (group ``workers``) and the
partition feeds (group ``projectors``) read the same way.

Reading all partitions: a sweep sends one ``XREADGROUP`` over the partitions, each asked for its share of
``count`` (``COUNT`` applies per stream, so never more than ``count`` in all; at least 1: with fewer than one
per partition a read may bring more than ``count``), starting from a rotating partition for fairness; a
partition that gave its whole share may hold more and is asked again with what is left. When every
partition has a share, the sweep's first call carries the ``BLOCK``: Redis answers it at once with every
partition that holds new entries, and only when none does it wait, until the first new entries, which it
hands over at once (a reader coming back from a batch asks once, not once to find nothing and once more
to wait). With fewer than one entry per partition, a sweep that found nothing is followed by one blocking
call with a share of 1 each, so a wake-up may bring more than ``count``.
On Redis Cluster one call cannot span slots (every partition is its own slot): a sweep sends one
``XREADGROUP`` per partition, pipelined (one round trip per node), and an idle reader of several partitions
sweeps again after a pause that grows from 1 ms to ``CLUSTER_POLL_MAX_MS`` (reset by any entry): a loaded
reader never pauses, an idle one sweeps about 40 times a second. A read blocked on a slot that
moves away is woken with ``UNBLOCKED``: an empty read, and the next call goes to the new owner.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import redis

from services.keys import WORKERS_GROUP, Keys
from services.pipeline.ports import Delivery, Pending, ReadAhead
from services.pipeline.redis_conn import is_cluster, queue_script, retry_noscript

FIELD = b"e"  # every stream entry carries its payload in one field
DEAD_MAXLEN = 10_000
CLUSTER_POLL_MAX_MS = 25
FORGET_AFTER = 10
"""A worker's heartbeat this many expiry periods old is deleted from the members hash."""

Entries = list[tuple[bytes, dict[bytes, bytes]]]
StreamsReply = list[tuple[bytes, Entries]]


def ensure_groups(r: redis.Redis, names: Sequence[str], group: str) -> None:
    """Create the consumer group on every stream (and the stream), reading from the start; idempotent."""
    pipe = r.pipeline(transaction=False)
    for name in names:
        pipe.xgroup_create(name, group, id="0", mkstream=True)
    for reply in pipe.execute(raise_on_error=False):
        if isinstance(reply, Exception) and "BUSYGROUP" not in str(reply):
            raise reply


def text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def delivery_of(name: str, entry_id: object, fields: dict[bytes, bytes], deliveries: int) -> Delivery:
    """A delivery of one entry; an entry without the payload field is handed out empty, with its ``problem``
    (never a KeyError that would strand the entries read with it)."""
    data = fields.get(FIELD)
    if data is None:
        names = ", ".join(sorted(text(k) for k in fields))[:100]
        return Delivery(name, text(entry_id), b"", deliveries, problem=f"no '{FIELD.decode()}' field (has: {names})")
    return Delivery(name, text(entry_id), data, deliveries)


def id_ms(entry_id: object) -> int:
    """The millisecond timestamp of an auto-generated entry id."""
    return int(text(entry_id).split("-")[0])


def entries_of(reply: object) -> Entries:
    """A range reply (XRANGE, XREVRANGE, XAUTOCLAIM's entries); the clients never decode responses."""
    return cast(Entries, reply or [])


LAG_COUNT_CAP = 1000
""":meth:`GroupStreams.lag` counts undelivered entries up to this many per partition (see there)."""


class GroupStreams:
    """One consumer group over one stream per partition."""

    def __init__(self, r: redis.Redis, names: Sequence[str], group: str) -> None:
        self._r = r
        self.names = list(names)
        self.group = group
        self._start = 0
        self._cluster = is_cluster(r)
        self._unacked: dict[str, list[Any]] = {}  # stream -> entry ids whose XACK goes with the next read
        self._index = {name: p for p, name in enumerate(self.names)}
        ensure_groups(r, self.names, group)

    def _deliveries(self, reply: object, deliveries: int = 1) -> list[Delivery]:
        out = []
        for name, entries in cast(StreamsReply, reply or []):
            for entry_id, fields in entries:
                if fields:  # None: the entry was trimmed while pending
                    out.append(delivery_of(text(name), entry_id, fields, deliveries))
        return out

    def read(self, consumer: str, count: int, block_ms: int, only: Sequence[int] | None = None) -> list[Delivery]:
        """New entries (at most ``count``) from every partition, or from the partitions ``only``."""
        names = self.names if only is None else [self.names[p] for p in only]
        if not names:
            return []
        try:
            # The sweep's first call asks every partition in one command when each has a share (not on a cluster
            # of several slots): then it waits itself.
            waits = block_ms > 0 and count >= len(names) and (not self._cluster or len(names) == 1)
            out = self._sweep(consumer, count, names, block_ms if waits else 0)
            if out or block_ms <= 0 or waits:
                return out
            if self._cluster and len(names) > 1:
                return self._poll(consumer, count, names, block_ms)
            woken = self._r.xreadgroup(self.group, consumer, dict.fromkeys(names, ">"), count=1, block=block_ms)
        except redis.ResponseError as e:
            if "UNBLOCKED" in str(e):  # the slot moved while the read was blocked on it
                return []
            if "NOGROUP" not in str(e):
                raise
            ensure_groups(self._r, self.names, self.group)  # the streams were deleted under us
            return []
        return self._deliveries(woken)

    def read_ahead(self, consumer: str, count: int, only: Sequence[int] | None = None) -> ReadAhead | None:
        """A read of every partition (``only``) in one non-blocking call, to travel in another pipeline of this
        Redis; None on a cluster (the streams' slots are not the appends') or with fewer than one entry per
        partition."""
        names = self.names if only is None else [self.names[p] for p in only]
        if self._cluster or not names or count < len(names):
            return None
        return _Ahead(self, consumer, count // len(names), names)

    def partition_of(self, name: str) -> int:
        return self._index[name]

    def _poll(self, consumer: str, count: int, names: list[str], block_ms: int) -> list[Delivery]:
        """Redis Cluster: sweep again after growing pauses until something comes or ``block_ms`` passed."""
        deadline = time.monotonic() + block_ms / 1000
        pause_ms = 1.0
        while (left := deadline - time.monotonic()) > 0:
            time.sleep(min(pause_ms / 1000, left))
            out = self._sweep(consumer, count, names)
            if out:
                return out
            pause_ms = min(pause_ms * 2, CLUSTER_POLL_MAX_MS)
        return []

    def _sweep(self, consumer: str, count: int, names: list[str], block_ms: int = 0) -> list[Delivery]:
        """One pass over ``names`` (see the module doc); ``block_ms`` > 0: its first call waits that long for
        new entries when there are none (the caller sees that this call is over every name, in one command)."""
        start = self._start % len(names)
        order = names[start:] + names[:start]
        self._start = (start + 1) % len(names)
        out: list[Delivery] = []
        block = block_ms if block_ms > 0 else None
        while order and len(out) < count:
            remaining = count - len(out)
            share = max(1, remaining // len(order))
            chunk, order = order[: remaining // share], order[remaining // share:]
            pipe = self._r.pipeline(transaction=False)
            acks = self._queue_acks(pipe)
            if self._cluster and block is None:  # one call per slot
                for name in chunk:
                    pipe.xreadgroup(self.group, consumer, {name: ">"}, count=share)
            else:
                pipe.xreadgroup(self.group, consumer, dict.fromkeys(chunk, ">"), count=share, block=block)
            block = None  # the rest of the sweep only takes what is there
            try:
                replies = pipe.execute()[len(acks):]
            except Exception:
                self._restore_acks(acks)
                raise
            for reply in replies:
                for stream, entries in cast(StreamsReply, reply or []):
                    out += self._deliveries([(stream, entries)])
                    if len(entries) == share:  # it may hold more: ask it again once the others had their turn
                        order.append(text(stream))
        return out

    def ack(self, delivery: Delivery) -> None:
        self._r.xack(delivery.stream, self.group, delivery.entry_id)

    def ack_many(self, deliveries: Sequence[Delivery], defer: bool = False) -> None:
        """One XACK per stream with all its entry ids, pipelined in one round trip; with ``defer``, in the
        pipeline of the next read instead (a round trip less per batch). Acknowledgements deferred before go
        with either."""
        for delivery in deliveries:
            self._unacked.setdefault(delivery.stream, []).append(delivery.entry_id)
        if defer or not self._unacked:
            return
        pipe = self._r.pipeline(transaction=False)
        acks = self._queue_acks(pipe)
        try:
            pipe.execute()
        except Exception:
            self._restore_acks(acks)
            raise

    def _queue_acks(self, pipe: Any) -> list[tuple[str, list[Any]]]:
        """Queue the deferred XACKs on ``pipe`` (one per stream) and forget them; returns what was queued."""
        acks, self._unacked = list(self._unacked.items()), {}
        for stream, ids in acks:
            pipe.xack(stream, self.group, *ids)
        return acks

    def _restore_acks(self, acks: list[tuple[str, list[Any]]]) -> None:
        """The pipeline carrying ``acks`` failed (they may or may not have run; XACK twice is harmless):
        keep them for the next round trip."""
        for stream, ids in acks:
            self._unacked.setdefault(stream, [])[:0] = ids

    def claim(self, consumer: str, min_idle_ms: int, count: int, only: Sequence[int] | None = None) -> list[Delivery]:
        """XAUTOCLAIM over every partition (or those ``only``); each delivery carries its delivery count."""
        out: list[Delivery] = []
        for name in (self.names if only is None else [self.names[p] for p in only]):
            cursor: bytes | str = "0-0"
            while len(out) < count:
                reply = self._r.xautoclaim(name, self.group, consumer, min_idle_ms, cursor, count=count - len(out))
                cursor, entries = reply[0], [(i, f) for i, f in entries_of(reply[1]) if f]
                if entries:
                    out += self._with_counts(name, consumer, entries)
                if text(cursor) == "0-0":
                    break
        return out

    def _with_counts(self, name: str, consumer: str, entries: Entries) -> list[Delivery]:
        pending = self._r.xpending_range(name, self.group, min=entries[0][0], max=entries[-1][0],
                                         count=2 * len(entries) + 16, consumername=consumer)
        counts = {text(p["message_id"]): int(p["times_delivered"]) for p in pending}
        return [delivery_of(name, i, f, counts.get(text(i), 2)) for i, f in entries]

    def forget(self, consumer: str) -> None:
        """Remove a consumer that is leaving from the group, where it holds nothing pending."""
        for name in self.names:
            if not self._r.xpending_range(name, self.group, "-", "+", 1, consumername=consumer):
                self._r.xgroup_delconsumer(name, self.group, consumer)

    def lag(self) -> dict[int, int]:
        """Entries not yet delivered to the group, per partition.

        Counted, not taken from ``XINFO GROUPS``'s ``lag`` alone: before Redis 7.4 a group's ``entries-read``
        is lost over an AOF reload (redis/redis#12898) and the reported lag then counts entries long delivered
        (thousands, on an idle stack). So the entries after the group's ``last-delivered-id`` are read, up to
        :data:`LAG_COUNT_CAP`: fewer than that is the exact lag on every version; at the cap the larger of the
        cap and the reported lag stands (a real backlog of that size exists either way)."""
        pipe = self._r.pipeline(transaction=False)
        for name in self.names:
            pipe.xinfo_groups(name)
        groups_of = pipe.execute()
        out: dict[int, int] = {}
        counted: list[tuple[int, str, int]] = []
        pipe = self._r.pipeline(transaction=False)
        for partition, (name, groups) in enumerate(zip(self.names, groups_of, strict=True)):
            group = next((g for g in groups if text(g["name"]) == self.group), None)
            if group is None:
                out[partition] = self._r.xlen(name)
                continue
            reported = group.get("lag")
            if reported is not None and int(reported) == 0:
                out[partition] = 0
                continue
            pipe.xrange(name, f"({text(group['last-delivered-id'])}", "+", count=LAG_COUNT_CAP)
            counted.append((partition, name, -1 if reported is None else int(reported)))
        for (partition, _name, reported), entries in zip(counted, pipe.execute() if counted else [], strict=True):
            n = len(entries_of(entries))
            out[partition] = n if n < LAG_COUNT_CAP else max(n, reported)
        return dict(sorted(out.items()))

    def pending(self) -> dict[int, Pending]:
        """XPENDING summary per partition: how many entries are delivered but unacknowledged, and the age of
        the oldest (from its id, the server's clock when it was added, against this host's clock)."""
        pipe = self._r.pipeline(transaction=False)
        for name in self.names:
            pipe.xpending(name, self.group)
        summaries = pipe.execute()
        now_ms = time.time() * 1000
        out = {}
        for partition, summary in enumerate(summaries):
            count = int(summary["pending"])
            oldest = max(0.0, (now_ms - id_ms(summary["min"])) / 1000) if count and summary["min"] else 0.0
            out[partition] = Pending(count, oldest)
        return out

    def trim(self) -> int:
        """Drop every entry below the oldest one the group still needs (pending or undelivered).

        The group's position is read first, then the pending summary (one round trip, in that order). The
        summary decides: with entries pending, their minimum (everything below it was delivered and acknowledged);
        with none, the position read before (everything up to it was delivered before the summary, and nothing is
        pending). The code before took the pending count from XINFO and the minimum from a later XPENDING:
        consumers acknowledging in between left no minimum, and ``XTRIM MINID None`` failed ("Invalid stream
        ID": the workers' "maintenance failed" every few minutes, #32)."""
        trimmed = 0
        for name in self.names:
            pipe = self._r.pipeline(transaction=False)
            pipe.xinfo_groups(name)
            pipe.xpending(name, self.group)
            try:
                groups, summary = pipe.execute()
            except redis.ResponseError as e:
                if "NOGROUP" in str(e) or "no such key" in str(e):
                    continue
                raise
            group = next((g for g in groups if text(g["name"]) == self.group), None)
            if group is None:
                continue
            keep_from = text(group["last-delivered-id"])
            if int(summary["pending"]) and summary.get("min") is not None:
                keep_from = text(summary["min"])
            trimmed += int(self._r.xtrim(name, minid=keep_from, approximate=True))
        return trimmed


class _Ahead:
    """A :class:`~services.pipeline.ports.ReadAhead` of one :class:`GroupStreams`: the acknowledgements deferred
    to the next read, then one ``XREADGROUP`` over ``names``, ``share`` entries each at most."""

    def __init__(self, streams: GroupStreams, consumer: str, share: int, names: list[str]) -> None:
        self._streams, self._consumer, self._share, self._names = streams, consumer, share, names
        self._acks: list[tuple[str, list[Any]]] = []
        self.deliveries: list[Delivery] | None = None
        self.more: list[int] = []

    def queue(self, pipe: Any) -> None:
        s = self._streams
        self._acks = s._queue_acks(pipe)
        pipe.xreadgroup(s.group, self._consumer, dict.fromkeys(self._names, ">"), count=self._share)

    def take(self, replies: Sequence[Any]) -> None:
        read = replies[-1]  # an error (the group gone): nothing read; the next read sees to it
        if isinstance(read, Exception):
            self.deliveries = []
            return
        s = self._streams
        self.deliveries = s._deliveries(read)
        self.more = [s.partition_of(text(name)) for name, entries in cast(StreamsReply, read or [])
                     if len(entries) == self._share]

    def failed(self) -> None:
        self._streams._restore_acks(self._acks)


def dead_letter(r: redis.Redis, dead: str, delivery: Delivery, error: str, group: str) -> None:
    """Add the entry with its last error to the dead-letter stream ``dead`` and acknowledge it, in one
    transaction. An entry that had no payload field keeps an empty one and its ``problem`` in the error."""
    if delivery.problem:
        error = f"{error} ({delivery.problem})"
    pipe = r.pipeline(transaction=True)
    pipe.xadd(dead, {FIELD: delivery.data, b"error": error.encode(), b"entry": delivery.entry_id.encode(),
                     b"stream": delivery.stream.encode(), b"deliveries": str(delivery.deliveries).encode()},
              maxlen=DEAD_MAXLEN, approximate=True)
    pipe.xack(delivery.stream, group, delivery.entry_id)
    pipe.execute()


class RedisBus:
    """The command bus: ``{p}:commands`` streams, consumer group ``workers``, ``{p}:dead``."""

    def __init__(self, r: redis.Redis, keys: Keys) -> None:
        self._r = r
        self._keys = keys
        self.partitions = keys.partitions
        self._streams = GroupStreams(r, [keys.commands(p) for p in range(keys.partitions)], WORKERS_GROUP)
        self._lease = r.register_script((Path(__file__).with_name("lua") / "lease.lua").read_text())
        self._held: set[int] = set()

    def publish(self, match_id: str, data: bytes) -> str:
        return text(self._r.xadd(self._keys.commands(self._keys.partition(match_id)), {FIELD: data}))

    def read(self, consumer: str, count: int, block_ms: int, only: Sequence[int] | None = None) -> list[Delivery]:
        return self._streams.read(consumer, count, block_ms, only)

    def read_ahead(self, consumer: str, count: int, only: Sequence[int] | None = None) -> ReadAhead | None:
        return self._streams.read_ahead(consumer, count, only)

    def members(self, consumer: str, present: bool, expiry_ms: int) -> list[str]:
        """Record (or, ``present`` False, withdraw) this consumer's heartbeat in ``<prefix>:workers`` and
        return the consumers with a heartbeat younger than ``expiry_ms``, sorted. One clock for all: the
        server's (TIME), so workers on hosts whose clocks disagree still see the same members."""
        seconds, micros = self._r.time()
        now_ms = int(seconds) * 1000 + int(micros) // 1000
        pipe = self._r.pipeline(transaction=False)
        pipe.hset(self._keys.members(), consumer, now_ms if present else 0)
        pipe.hgetall(self._keys.members())
        beats = {text(c): int(t) for c, t in cast(dict[bytes, bytes], pipe.execute()[1]).items()}
        gone = [c for c, t in beats.items() if now_ms - t > FORGET_AFTER * expiry_ms]
        if gone:  # long dead (or withdrawn): forget them, so the hash does not grow with every restart
            self._r.hdel(self._keys.members(), *gone)
        return sorted(c for c, t in beats.items() if now_ms - t <= expiry_ms)

    def ack(self, delivery: Delivery) -> None:
        self._streams.ack(delivery)

    def ack_many(self, deliveries: Sequence[Delivery], defer: bool = False) -> None:
        self._streams.ack_many(deliveries, defer)

    def claim_stale(self, consumer: str, min_idle_ms: int, count: int,
                    only: Sequence[int] | None = None) -> list[Delivery]:
        return self._streams.claim(consumer, min_idle_ms, count, only)

    def leases(self, consumer: str, want: Sequence[int], ttl_ms: int) -> list[int]:
        """One script call per partition (each lease on its partition's slot), pipelined: the partitions of
        ``want`` and those this bus held at its last call (to give up what is no longer wanted)."""
        wanted = set(want)
        partitions = sorted(wanted | self._held)
        if not partitions:
            return []
        calls = [([self._keys.lease(p)], [consumer, ttl_ms, int(p in wanted)]) for p in partitions]
        pipe = self._r.pipeline(transaction=False)
        for keys, args in calls:
            queue_script(pipe, self._lease, keys, args)
        replies = retry_noscript(pipe.execute(raise_on_error=False), self._lease, calls)
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        self._held = {p for p, reply in zip(partitions, replies, strict=True) if int(reply) == 1}
        return sorted(self._held)

    def dead_letter(self, delivery: Delivery, error: str) -> None:
        """Record the command with its last error in ``{p}:dead`` and acknowledge it, in one transaction."""
        dead = self._keys.dead(self._streams.partition_of(delivery.stream))
        dead_letter(self._r, dead, delivery, error, WORKERS_GROUP)

    def dead_letters(self, partition: int, count: int = 100) -> list[tuple[bytes, str]]:
        """The newest dead letters of a partition: (command bytes, error)."""
        entries = entries_of(self._r.xrevrange(self._keys.dead(partition), count=count))
        return [(fields.get(FIELD, b""), text(fields.get(b"error", b""))) for _, fields in entries]

    def pending(self) -> dict[int, Pending]:
        return self._streams.pending()

    def lag(self) -> dict[int, int]:
        return self._streams.lag()

    def forget(self, consumer: str) -> None:
        self._streams.forget(consumer)

    def trim(self) -> int:
        return self._streams.trim()
