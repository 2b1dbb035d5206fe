"""The interfaces the worker, projector and clients speak. Two implementations exist:
:mod:`services.pipeline.memory` (in-process, the embedded default) and the Redis one. One contract test
suite (tests/pipeline/contract.py) runs against both.

Streams follow Redis Streams semantics: entries have ids, consumer groups track what each consumer was
given (pending until acknowledged), and entries left pending by a dead consumer are claimed by another.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol

from schemas.envelopes import CommandResult, EventEnvelope, MatchMeta, ViewRecord


@dataclass(frozen=True, slots=True)
class Delivery:
    """One stream entry handed to a consumer. ``deliveries`` counts how often it was handed out.

    ``problem`` says why the entry cannot be read at all (it has no payload field ``e``: written by
    something else, or by hand); ``data`` is then empty. Consumers leave such an entry pending and
    dead-letter it once it has been delivered ``max_deliveries`` times, like any entry that keeps failing."""

    stream: str
    entry_id: str
    data: bytes
    deliveries: int = 1
    problem: str | None = None


@dataclass(frozen=True, slots=True)
class Pending:
    """A group's delivered but unacknowledged entries on one stream: how many, and the age in seconds of the
    oldest (since it was added to the stream; 0 when none)."""

    count: int
    oldest_s: float


class AppendStatus(Enum):
    APPENDED = "appended"
    DUPLICATE = "duplicate"  # the command id was seen before: ``result`` is the earlier result
    CONFLICT = "conflict"  # the match is not at the expected version: reload and decide again


@dataclass(frozen=True, slots=True)
class AppendOutcome:
    status: AppendStatus
    version: int
    result: CommandResult | None = None


@dataclass(frozen=True, slots=True)
class Start:
    """What the join that starts a clocked match appends (#29): ``ClockStarted`` at the version after the set-up's,
    and the match's first deadline (ms)."""

    event: EventEnvelope
    deadline: int


@dataclass(frozen=True)
class AppendItem:
    """One command's append in a chain (see :meth:`EventStore.append_chains`)."""

    expected_version: int
    events: Sequence[EventEnvelope]
    result: CommandResult
    finished: bool = False
    deadline: int = -1  # a clocked match's next deadline (ms; 0: none); -1: no clock (:meth:`EventStore.append`)


class ReadAhead(Protocol):
    """A read of a consumer's next batch that travels in the round trip of the appends (see
    :meth:`CommandBus.read_ahead`): queued on the store's pipeline after them, it takes what is there then,
    without waiting. ``deliveries`` stays None when it was not sent (the appends failed, or went another way);
    ``more``: the partitions that gave all they were asked for, and may hold more."""

    deliveries: list[Delivery] | None
    more: list[int]

    def queue(self, pipe: Any) -> None:
        """Queue the read (and the acknowledgements deferred to it) on a pipeline of the bus's Redis."""
        ...

    def take(self, replies: Sequence[Any]) -> None:
        """The replies of what :meth:`queue` queued, in order (errors as exception objects)."""
        ...

    def failed(self) -> None:
        """The pipeline carrying it failed: the acknowledgements it carried are kept for the next round trip."""
        ...


class CommandBus(Protocol):
    """Commands in, per partition, read through the consumer group ``workers``."""

    partitions: int

    def publish(self, match_id: str, data: bytes) -> str:
        """Add a packed command envelope to its match's partition stream; returns the entry id."""
        ...

    def read(self, consumer: str, count: int, block_ms: int, only: Sequence[int] | None = None) -> list[Delivery]:
        """New entries for this consumer from every partition, or from the partitions ``only`` (at most
        ``count`` in all)."""
        ...

    def read_ahead(self, consumer: str, count: int, only: Sequence[int] | None = None) -> ReadAhead | None:
        """A read like :meth:`read` (not blocking) to send with the next appends, a round trip less per batch; None
        where that saves nothing (in process) or cannot be (Redis Cluster: the appends and the streams are on
        different nodes; fewer than one entry per partition)."""
        ...

    def members(self, consumer: str, present: bool, expiry_ms: int) -> list[str]:
        """Record this consumer's heartbeat (or withdraw it) and return the live consumers, sorted: those
        with a heartbeat younger than ``expiry_ms`` (one clock for all)."""
        ...

    def ack(self, delivery: Delivery) -> None: ...

    def ack_many(self, deliveries: Sequence[Delivery], defer: bool = False) -> None:
        """Acknowledge several at once (one round trip on Redis), and any deferred before. ``defer``: the
        acknowledgement may travel with this consumer's next read instead (Redis: no round trip of its own);
        an entry whose deferred acknowledgement never went (the consumer died first) is delivered again, and
        the at-most-once record answers it."""
        ...

    def claim_stale(self, consumer: str, min_idle_ms: int, count: int,
                    only: Sequence[int] | None = None) -> list[Delivery]:
        """Take over entries pending longer than ``min_idle_ms`` with other consumers (XAUTOCLAIM), of every
        partition or of the partitions ``only``."""
        ...

    def leases(self, consumer: str, want: Sequence[int], ttl_ms: int) -> list[int]:
        """Take or renew this consumer's lease on each partition of ``want`` that nobody else holds, for
        ``ttl_ms``; give up every other lease it holds. Returns the partitions it holds now, sorted. A lease
        lapses ``ttl_ms`` after its last renewal (one clock: the server's)."""
        ...

    def dead_letter(self, delivery: Delivery, error: str) -> None:
        """Record a command that failed repeatedly (``{p}:dead``) and acknowledge it."""
        ...

    def lag(self) -> dict[int, int]:
        """Entries not yet delivered, per partition."""
        ...

    def trim(self) -> int:
        """Drop entries the group has acknowledged (never one still pending); returns how many went."""
        ...

    def pending(self) -> dict[int, Pending]:
        """Delivered, unacknowledged entries per partition (XPENDING summary)."""
        ...


@dataclass(frozen=True)
class Joined:
    """What :meth:`EventStore.join` did: ``outcome`` 'joined' (``seat`` set) or why not: 'unknown', 'expired',
    'started', 'lapsed', 'twice', 'no_seat', 'reserved', 'taken'."""

    outcome: str
    seat: int | None = None


class EventStore(Protocol):
    """Match metadata, event logs, results and the partition feeds."""

    partitions: int

    def create_match(self, meta: MatchMeta, events: Sequence[EventEnvelope], fields: Sequence[Any] = ()) -> bool:
        """Store a new match with its set-up events (versions 1..k). False if the id is taken. ``fields``: more
        meta field/value pairs (``reserve:<seat>`` player, ``arena_claim_by`` ms)."""
        ...

    def meta(self, match_id: str) -> MatchMeta | None:
        """The match's metadata; on Redis without the seed, which is kept apart for workers."""
        ...

    def seed(self, match_id: str) -> int | None:
        """The match's secret seed (workers and admin tools only)."""
        ...

    def claim_seat(self, match_id: str, seat: int, credential_hash: str) -> MatchMeta | None:
        """Give a free seat its credential hash; the match runs once every seat is taken.
        Returns the new meta, or None when the seat was already taken (or the match is unknown)."""
        ...

    def join(self, match_id: str, seat: int, credential_hash: str, player: str | None = None,
             until_ms: int = 0, start: Start | None = None) -> Joined:
        """``match.join``, atomically: ``seat`` gets the credential hash, linked to ``player``; the match
        runs once every seat is taken. A seat already holding this hash is answered as joined. Refused when past
        ``until_ms`` (0: no deadline), the match is not open, an arena match lapsed, the player holds a seat of
        it already, or the seat is reserved for another, taken or does not exist (:class:`Joined`). ``start``: a
        clocked match's ``ClockStarted`` event and first deadline, appended only by the join that starts it."""
        ...

    def list_matches(self, status: str | None = None, limit: int = 100) -> list[MatchMeta]: ...

    def version(self, match_id: str) -> int: ...

    def read_log(self, match_id: str, after: int = 0, limit: int | None = None) -> list[EventEnvelope]:
        """Events with version > ``after``, in order."""
        ...

    def append(
        self,
        match_id: str,
        expected_version: int,
        events: Sequence[EventEnvelope],
        result: CommandResult,
        finished: bool = False,
        deadline: int = -1,
    ) -> AppendOutcome:
        """Atomically: if ``result.command_id`` was seen, return DUPLICATE with the earlier result;
        if the log is not at ``expected_version``, CONFLICT; else add the events to the log and the feed,
        record the result (and mark the match finished). ``events`` may be empty (a rejection). ``deadline``
        (#29): a clocked match's next deadline in ms (0: none), kept for :meth:`due_clocks`; -1: no clock."""
        ...

    def due_clocks(self, partitions: Sequence[int] | None, now_ms: int, limit: int) -> list[tuple[str, int]]:
        """Clocked matches whose next deadline is at or before ``now_ms`` (match id, deadline), earliest first, at
        most ``limit`` per partition; ``partitions`` None: all."""
        ...

    def append_chains(self, chains: Mapping[str, Sequence[AppendItem]],
                      ahead: ReadAhead | None = None) -> dict[str, list[AppendOutcome]]:
        """For each match, its commands in order, atomically per match (one round trip in all on Redis).
        Each as :meth:`append`, but the expected version is checked for every item (a rejection's too, as
        it was decided on that version's state), and a match's chain stops at the first item that is not
        APPENDED: the items after it are not tried and have no outcome in the answer. ``ahead``: a read of
        the command bus sent in the same round trip, after the appends, where the store can."""
        ...

    def result(self, match_id: str, command_id: str) -> CommandResult | None: ...

    def announce(self, result: CommandResult) -> None:
        """Tell the gateways' readers a result that no match holds (a ``match.create`` whose set-up failed, a
        ``match.join`` of a match that is gone): on the partition's live stream only, recorded nowhere."""
        ...

    def purge(self, match_id: str, status: str, version: int, open_ttl_s: float) -> str:
        """``match.purge``: remove the match (every key, its set entries) only if it is finished at ``version``
        (``status`` 'finished') or open and created more than ``open_ttl_s`` ago ('open'; 0 keeps open
        matches); else remove nothing. Returns 'deleted', 'gone' (nothing was there) or why not."""
        ...

    def read_results(self, match_id: str, after: str, block_ms: int) -> list[tuple[str, CommandResult]]:
        """Results after stream position ``after`` ("0" for all)."""
        ...

    def results_end(self, match_id: str) -> str:
        """The position of the newest result ("0" when none): reading after it waits for the next."""
        ...

    def read_feed(self, consumer: str, count: int, block_ms: int) -> list[Delivery]:
        """New feed entries (packed EventEnvelope) for consumer group ``projectors``."""
        ...

    def ack_feed(self, delivery: Delivery) -> None: ...

    def claim_stale_feed(self, consumer: str, min_idle_ms: int, count: int) -> list[Delivery]: ...

    def feed_pending(self) -> dict[int, Pending]:
        """Delivered, unacknowledged feed entries per partition (XPENDING summary of ``projectors``)."""
        ...

    def dead_letter_feed(self, delivery: Delivery, error: str) -> None:
        """Record a feed entry the projectors cannot read (``{p}:feed-dead``) and acknowledge it."""
        ...

    # -- parked matches: the projector gave up building their views ----------------------------------
    def park(self, match_id: str, error: str, deliveries: int) -> bool:
        """Record the match as parked (``{p}:parked``) with the error; False if it already was."""
        ...

    def parked_among(self, match_ids: Sequence[str]) -> set[str]:
        """Those of ``match_ids`` that are parked (one round trip)."""
        ...

    def parked_matches(self) -> dict[str, dict[str, str]]:
        """Every parked match: match id -> {error, at (unix s), deliveries}."""
        ...

    def unpark(self, match_id: str) -> bool:
        """Forget that the match is parked and put its newest event on the feed again, so a projector
        rebuilds its views (and parks it again if they still fail). False if it was not parked."""
        ...


class ViewStore(Protocol):
    """Read models: one record per (match, key), key 'public' or a seat number as text."""

    def put_views(self, match_id: str, records: Sequence[ViewRecord]) -> None:
        """Write the records (only those newer than what is stored) and announce each new version."""
        ...

    def get_view(self, match_id: str, key: str) -> ViewRecord | None: ...

    def read_updates(self, match_id: str, after: str, block_ms: int) -> list[tuple[str, str, int]]:
        """Announcements after stream position ``after``: (position, key, version)."""
        ...

    def updates_end(self, match_id: str) -> str:
        """The position of the newest announcement ("0" when none)."""
        ...


class Backend(Protocol):
    """A complete backend: what ``airship play`` and the client need."""

    @property
    def bus(self) -> CommandBus: ...

    @property
    def store(self) -> EventStore: ...

    @property
    def views(self) -> ViewStore: ...

    def close(self) -> None: ...
