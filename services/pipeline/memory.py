"""The in-process backend: the embedded default of ``airship play`` on a machine without Redis.

It implements the same interfaces as the Redis backend (:mod:`services.pipeline.ports`) with the same
semantics, including consumer groups and the atomic append, so the contract tests run against both.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from schemas.codec import pack, pack_result, unpack_result
from schemas.envelopes import CommandResult, EventEnvelope, MatchMeta, ViewRecord
from services.keys import DEFAULT_PARTITIONS, PROJECTORS_GROUP, WORKERS_GROUP, partition_of
from services.pipeline.memstream import MemStream
from services.pipeline.ports import AppendItem, AppendOutcome, AppendStatus, Delivery, Joined, Pending, ReadAhead, Start

T = TypeVar("T")
FEED_MAXLEN = 100_000
RESULTS_MAXLEN = 1_000


class _Blocking:
    """Shared blocking-read helper: poll ``read`` until it yields something or time runs out."""

    def __init__(self, cond: threading.Condition) -> None:
        self._cond = cond

    def wait_read(self, read: Callable[[], list[T]], block_ms: int) -> list[T]:
        deadline = time.monotonic() + block_ms / 1000
        with self._cond:
            while True:
                out = read()
                remaining = deadline - time.monotonic()
                if out or remaining <= 0:
                    return out
                self._cond.wait(remaining)


class _Partitioned(_Blocking):
    """One stream per partition, read through one consumer group (like the Redis bus and feeds)."""

    def __init__(self, cond: threading.Condition, partitions: int, suffix: str, group: str,
                 maxlen: int | None = None) -> None:
        super().__init__(cond)
        self.partitions = partitions
        self.group = group
        self.streams = [MemStream(f"{{{p}}}:{suffix}", cond, maxlen) for p in range(partitions)]
        self._by_name = {s.name: s for s in self.streams}

    def add(self, match_id: str, data: bytes) -> str:
        return self.streams[partition_of(match_id, self.partitions)].add(data)

    def read(self, consumer: str, count: int, block_ms: int, only: Sequence[int] | None = None) -> list[Delivery]:
        streams = self.streams if only is None else [self.streams[p] for p in only]

        def once() -> list[Delivery]:
            out: list[Delivery] = []
            for stream in streams:
                out.extend(stream.read_group(self.group, consumer, count - len(out)))
                if len(out) >= count:
                    break
            return out

        return self.wait_read(once, block_ms)

    def ack(self, delivery: Delivery) -> None:
        self._by_name[delivery.stream].ack(self.group, delivery.entry_id)

    def claim(self, consumer: str, min_idle_ms: int, count: int, only: Sequence[int] | None = None) -> list[Delivery]:
        out: list[Delivery] = []
        for stream in (self.streams if only is None else [self.streams[p] for p in only]):
            out.extend(stream.claim(self.group, consumer, min_idle_ms, count - len(out)))
        return out

    def lag(self) -> dict[int, int]:
        with self._cond:
            return {p: s.undelivered(self.group) for p, s in enumerate(self.streams)}

    def pending(self) -> dict[int, Pending]:
        with self._cond:
            return {p: s.pending(self.group) for p, s in enumerate(self.streams)}

    def partition_of_stream(self, name: str) -> int:
        return self.streams.index(self._by_name[name])


def _dead_error(delivery: Delivery, error: str) -> str:
    return f"{error} ({delivery.problem})" if delivery.problem else error


class MemoryBus:
    def __init__(self, cond: threading.Condition, partitions: int) -> None:
        self._cond = cond
        self.partitions = partitions
        self._commands = _Partitioned(cond, partitions, "commands", WORKERS_GROUP)
        self.dead: list[tuple[bytes, str]] = []
        self._dead_by_partition: dict[int, list[tuple[bytes, str]]] = {}
        self._beats: dict[str, int] = {}
        self._leases: dict[int, tuple[str, float]] = {}  # partition -> (holder, until, monotonic ms)

    def publish(self, match_id: str, data: bytes) -> str:
        return self._commands.add(match_id, data)

    def read(self, consumer: str, count: int, block_ms: int, only: Sequence[int] | None = None) -> list[Delivery]:
        return self._commands.read(consumer, count, block_ms, only)

    def read_ahead(self, consumer: str, count: int, only: Sequence[int] | None = None) -> ReadAhead | None:
        return None  # no round trip to save in memory

    def members(self, consumer: str, present: bool, expiry_ms: int) -> list[str]:
        now_ms = int(time.monotonic() * 1000)
        with self._cond:
            if present:
                self._beats[consumer] = now_ms
            else:
                self._beats.pop(consumer, None)
            return sorted(c for c, t in self._beats.items() if now_ms - t <= expiry_ms)

    def ack(self, delivery: Delivery) -> None:
        self._commands.ack(delivery)

    def ack_many(self, deliveries: Sequence[Delivery], defer: bool = False) -> None:
        for delivery in deliveries:  # nothing to save by deferring in memory
            self.ack(delivery)

    def claim_stale(self, consumer: str, min_idle_ms: int, count: int,
                    only: Sequence[int] | None = None) -> list[Delivery]:
        return self._commands.claim(consumer, min_idle_ms, count, only)

    def leases(self, consumer: str, want: Sequence[int], ttl_ms: int) -> list[int]:
        now_ms = time.monotonic() * 1000
        with self._cond:
            for p in range(self.partitions):
                holder, until = self._leases.get(p, ("", 0.0))
                if until <= now_ms:
                    holder = ""
                if p in want and holder in ("", consumer):
                    self._leases[p] = (consumer, now_ms + ttl_ms)
                elif p not in want and holder == consumer:
                    self._leases.pop(p, None)
            return sorted(p for p, (holder, until) in self._leases.items() if holder == consumer and until > now_ms)

    def dead_letter(self, delivery: Delivery, error: str) -> None:
        with self._cond:
            letter = (delivery.data, _dead_error(delivery, error))
            self.dead.append(letter)
            self._dead_by_partition.setdefault(self._commands.partition_of_stream(delivery.stream), []).append(letter)
        self.ack(delivery)

    def dead_letters(self, partition: int, count: int = 100) -> list[tuple[bytes, str]]:
        """The newest dead letters of a partition: (command bytes, error)."""
        with self._cond:
            return list(reversed(self._dead_by_partition.get(partition, [])))[:count]

    def publish_malformed(self, match_id: str, problem: str = "no 'e' field") -> str:
        """Add an entry without a payload to the match's command stream (tests: what Redis may hold)."""
        return self._commands.streams[partition_of(match_id, self.partitions)].add(b"", problem)

    def lag(self) -> dict[int, int]:
        return self._commands.lag()

    def pending(self) -> dict[int, Pending]:
        return self._commands.pending()

    def trim(self) -> int:
        return 0  # in-process streams live as long as the process; nothing to reclaim


class _Match:
    __slots__ = ("fields", "log", "meta", "results", "seen", "updates", "views")

    def __init__(self, meta: MatchMeta, cond: threading.Condition, fields: Sequence[Any] = ()) -> None:
        self.meta = meta
        self.fields = {str(k): str(v) for k, v in zip(fields[::2], fields[1::2], strict=True)}
        self.log: list[EventEnvelope] = []
        self.seen: dict[str, CommandResult] = {}
        self.results = MemStream(f"{meta.match_id}:results", cond, RESULTS_MAXLEN)
        self.views: dict[str, ViewRecord] = {}
        self.updates = MemStream(f"{meta.match_id}:updates", cond)


class MemoryStore(_Blocking):
    def __init__(self, cond: threading.Condition, partitions: int) -> None:
        super().__init__(cond)
        self.partitions = partitions
        self._matches: dict[str, _Match] = {}
        self._feeds = _Partitioned(cond, partitions, "feed", PROJECTORS_GROUP, FEED_MAXLEN)
        self._feed_dead: dict[int, list[tuple[bytes, str]]] = {}
        self._parked: dict[str, dict[str, str]] = {}
        self._clocks: dict[str, int] = {}  # clocked match -> its next deadline (ms), as the {p}:clocks sets

    # -- matches ---------------------------------------------------------------------------------
    def _get(self, match_id: str) -> _Match | None:
        return self._matches.get(match_id)

    def create_match(self, meta: MatchMeta, events: Sequence[EventEnvelope], fields: Sequence[Any] = ()) -> bool:
        with self._cond:
            if meta.match_id in self._matches:
                return False
            self._matches[meta.match_id] = _Match(meta, self._cond, fields)
            self._add_events(meta.match_id, events)
            return True

    def meta(self, match_id: str) -> MatchMeta | None:
        with self._cond:
            match = self._get(match_id)
            return match.meta if match else None

    def seed(self, match_id: str) -> int | None:
        with self._cond:
            match = self._get(match_id)
            return match.meta.seed if match else None

    def claim_seat(self, match_id: str, seat: int, credential_hash: str) -> MatchMeta | None:
        with self._cond:
            return self.meta(match_id) if self.join(match_id, seat, credential_hash).outcome == "joined" else None

    def join(self, match_id: str, seat: int, credential_hash: str, player: str | None = None,
             until_ms: int = 0, start: Start | None = None) -> Joined:
        """As ``lua/join.lua`` (without the arena's dissolution, which only the gateways on Redis do)."""
        with self._cond:
            match = self._get(match_id)
            if match is None:
                return Joined("unknown")
            meta = match.meta
            for s, h in meta.credential_hashes.items():
                if h == credential_hash:
                    return Joined("joined", s)
            now_ms = int(time.time() * 1000)
            if until_ms and now_ms > until_ms:
                return Joined("expired")
            if meta.status != "open":
                return Joined("started")
            reserved = {int(k[8:]): v for k, v in match.fields.items() if k.startswith("reserve:")}
            if player is not None:
                claim_by = match.fields.get("arena_claim_by")
                if claim_by is not None and now_ms > int(claim_by):
                    return Joined("lapsed")
                if player in meta.players.values():
                    return Joined("twice")
            if not 0 <= seat < meta.seats:
                return Joined("no_seat")
            if seat in reserved and reserved[seat] != player:
                return Joined("reserved")
            if seat in meta.credential_hashes:
                return Joined("taken")
            hashes = {**meta.credential_hashes, seat: credential_hash}
            players = {**meta.players, seat: player} if player is not None else meta.players
            status = "running" if len(hashes) == meta.seats else meta.status
            match.meta = meta.model_copy(update={"credential_hashes": hashes, "status": status, "players": players})
            if status == "running" and start is not None and len(match.log) + 1 == start.event.version:
                self._add_events(match_id, [start.event])
                if start.deadline > 0:
                    self._clocks[match_id] = start.deadline
            return Joined("joined", seat)

    def list_matches(self, status: str | None = None, limit: int = 100) -> list[MatchMeta]:
        with self._cond:
            metas = [m.meta for m in self._matches.values() if status is None or m.meta.status == status]
            return metas[:limit]

    def version(self, match_id: str) -> int:
        with self._cond:
            match = self._get(match_id)
            return len(match.log) if match else 0

    def read_log(self, match_id: str, after: int = 0, limit: int | None = None) -> list[EventEnvelope]:
        with self._cond:
            match = self._get(match_id)
            if match is None:
                return []
            end = len(match.log) if limit is None else min(len(match.log), after + limit)
            return match.log[after:end]

    def _add_events(self, match_id: str, events: Sequence[EventEnvelope]) -> None:
        match = self._matches[match_id]
        feed = self._feeds.streams[partition_of(match_id, self.partitions)]
        for event in events:
            match.log.append(event)
            feed.add(pack(event))

    def append(
        self,
        match_id: str,
        expected_version: int,
        events: Sequence[EventEnvelope],
        result: CommandResult,
        finished: bool = False,
        deadline: int = -1,
    ) -> AppendOutcome:
        with self._cond:
            match = self._get(match_id)
            if match is None:
                raise KeyError(f"unknown match {match_id}")
            earlier = match.seen.get(result.command_id)
            if earlier is not None:
                return AppendOutcome(AppendStatus.DUPLICATE, len(match.log), earlier)
            if events and len(match.log) != expected_version:
                return AppendOutcome(AppendStatus.CONFLICT, len(match.log))
            self._add_events(match_id, events)
            match.seen[result.command_id] = result
            match.results.add(pack_result(result))
            if finished:
                match.meta = match.meta.model_copy(update={"status": "finished"})
            if events and deadline >= 0:
                if deadline > 0 and not finished:
                    self._clocks[match_id] = deadline
                else:
                    self._clocks.pop(match_id, None)
            return AppendOutcome(AppendStatus.APPENDED, len(match.log), result)

    def due_clocks(self, partitions: Sequence[int] | None, now_ms: int, limit: int) -> list[tuple[str, int]]:
        with self._cond:
            due = sorted((d, m) for m, d in self._clocks.items() if d <= now_ms and (
                partitions is None or partition_of(m, self.partitions) in partitions))
        return [(m, d) for d, m in due[:limit * (len(partitions) if partitions is not None else self.partitions)]]

    def purge(self, match_id: str, status: str, version: int, open_ttl_s: float) -> str:
        with self._cond:
            match = self._get(match_id)
            if match is None:
                return "gone"
            meta = match.meta
            if status == "finished":
                if meta.status != "finished":
                    return "not_finished"
                if len(match.log) != version:
                    return "changed"
            elif status == "open":
                if meta.status != "open":
                    return "started"
                if open_ttl_s <= 0:
                    return "kept"
                if meta.created_ms is None or meta.created_ms + open_ttl_s * 1000 > time.time() * 1000:
                    return "young"
            else:
                return "bad"
            del self._matches[match_id]
            self._parked.pop(match_id, None)
            self._clocks.pop(match_id, None)
            return "deleted"

    def append_chains(self, chains: Mapping[str, Sequence[AppendItem]],
                      ahead: ReadAhead | None = None) -> dict[str, list[AppendOutcome]]:
        out: dict[str, list[AppendOutcome]] = {}
        with self._cond:
            for match_id, items in chains.items():
                outcomes = out[match_id] = []
                for item in items:
                    match = self._get(match_id)
                    if match is not None and not match.seen.get(item.result.command_id) and (
                        len(match.log) != item.expected_version
                    ):
                        outcomes.append(AppendOutcome(AppendStatus.CONFLICT, len(match.log)))
                        break
                    outcome = self.append(match_id, item.expected_version, item.events, item.result, item.finished,
                                          item.deadline)
                    outcomes.append(outcome)
                    if outcome.status is not AppendStatus.APPENDED:
                        break
        return out

    def result(self, match_id: str, command_id: str) -> CommandResult | None:
        with self._cond:
            match = self._get(match_id)
            return match.seen.get(command_id) if match else None

    def announce(self, result: CommandResult) -> None:
        """Nothing to do in process: results are read per match here, and the match of such a result does not
        exist (the embedded clients create and join directly, :mod:`services.pipeline.lobby`)."""

    def read_results(self, match_id: str, after: str, block_ms: int) -> list[tuple[str, CommandResult]]:
        match = self._get(match_id)
        if match is None:
            return []
        start = int(after.split("-")[0])

        def once() -> list[tuple[str, CommandResult]]:
            return [(f"{seq}-0", unpack_result(data, match_id)) for seq, data in match.results.range(start)]

        return self.wait_read(once, block_ms)

    def results_end(self, match_id: str) -> str:
        match = self._get(match_id)
        return match.results.end() if match else "0"

    # -- feed ------------------------------------------------------------------------------------
    def read_feed(self, consumer: str, count: int, block_ms: int) -> list[Delivery]:
        return self._feeds.read(consumer, count, block_ms)

    def ack_feed(self, delivery: Delivery) -> None:
        self._feeds.ack(delivery)

    def claim_stale_feed(self, consumer: str, min_idle_ms: int, count: int) -> list[Delivery]:
        return self._feeds.claim(consumer, min_idle_ms, count)

    def feed_lag(self) -> dict[int, int]:
        return self._feeds.lag()

    def feed_pending(self) -> dict[int, Pending]:
        return self._feeds.pending()

    def dead_letter_feed(self, delivery: Delivery, error: str) -> None:
        with self._cond:
            partition = self._feeds.partition_of_stream(delivery.stream)
            self._feed_dead.setdefault(partition, []).append((delivery.data, _dead_error(delivery, error)))
        self._feeds.ack(delivery)

    def feed_dead_letters(self, partition: int, count: int = 100) -> list[tuple[bytes, str]]:
        with self._cond:
            return list(reversed(self._feed_dead.get(partition, [])))[:count]

    def add_to_feed(self, match_id: str, data: bytes, problem: str | None = None) -> str:
        """Add a raw entry to the match's partition feed (tests: junk, or an entry without a payload)."""
        return self._feeds.streams[partition_of(match_id, self.partitions)].add(data, problem)

    # -- parked matches --------------------------------------------------------------------------
    def park(self, match_id: str, error: str, deliveries: int) -> bool:
        with self._cond:
            if match_id in self._parked:
                return False
            self._parked[match_id] = {"error": error, "at": str(round(time.time(), 3)), "deliveries": str(deliveries)}
            return True

    def parked_among(self, match_ids: Sequence[str]) -> set[str]:
        with self._cond:
            return {m for m in match_ids if m in self._parked}

    def parked_matches(self) -> dict[str, dict[str, str]]:
        with self._cond:
            return {match_id: dict(record) for match_id, record in self._parked.items()}

    def parked_count(self) -> int:
        with self._cond:
            return len(self._parked)

    def unpark(self, match_id: str) -> bool:
        with self._cond:
            if self._parked.pop(match_id, None) is None:
                return False
            match = self._get(match_id)
            if match is not None and match.log:
                self._feeds.streams[partition_of(match_id, self.partitions)].add(pack(match.log[-1]))
            return True

    # -- views -----------------------------------------------------------------------------------
    def put_views(self, match_id: str, records: Sequence[ViewRecord]) -> None:
        with self._cond:
            match = self._get(match_id)
            if match is None:
                return
            for record in records:
                current = match.views.get(record.key)
                if current is not None and current.version >= record.version:
                    continue
                match.views[record.key] = record
                match.updates.add(f"{record.key}\n{record.version}".encode())

    def get_view(self, match_id: str, key: str) -> ViewRecord | None:
        with self._cond:
            match = self._get(match_id)
            return match.views.get(key) if match else None

    def read_updates(self, match_id: str, after: str, block_ms: int) -> list[tuple[str, str, int]]:
        match = self._get(match_id)
        if match is None:
            return []
        start = int(after.split("-")[0])

        def once() -> list[tuple[str, str, int]]:
            out = []
            for seq, data in match.updates.range(start):
                key, version = data.decode().split("\n")
                out.append((f"{seq}-0", key, int(version)))
            return out

        return self.wait_read(once, block_ms)

    def updates_end(self, match_id: str) -> str:
        match = self._get(match_id)
        return match.updates.end() if match else "0"


class MemoryBackend:
    """Everything in one process: command bus, event store and view store."""

    def __init__(self, partitions: int = DEFAULT_PARTITIONS) -> None:
        cond = threading.Condition(threading.RLock())
        self.bus = MemoryBus(cond, partitions)
        self.store = MemoryStore(cond, partitions)
        self.views = self.store

    def close(self) -> None:
        return None
