"""Live delivery without a Redis connection per watched match: a few readers per gateway, fanned out in memory.

Workers announce every command result, and projectors every view version they write, on their partition's
``live`` stream (``{p}:live``, written in the same script as the result or the view, so an announcement never
precedes what it announces). A gateway reads those streams: on one server with **one** blocking ``XREAD`` over
every partition, on a Redis Cluster with one per partition (a read cannot span slots). Each entry names its
match; the reader hands it to that match's :class:`MatchHub`, if this gateway watches the match, and skips it
otherwise. The gateway's Redis connections therefore stay the same whatever the number of watched matches,
waiting long-polls, pending commands or sockets (docs/gateway.md, "Live delivery").

The readers take their stream positions before any hub is handed out, so whatever happens after a
registration is seen: a command published after :meth:`MatchHub.expect` has its result delivered, a view
written after :meth:`MatchHub.add_listener` is announced. When a read fails (Redis restarting, a cluster
failing over) the reader backs off and reads on from its positions; once a read works again every hub is
**resynced**: each waiting command looks for its recorded result, each listener gets :data:`RESYNC` and reads
its view record again, so nothing announced while the connection was down is missed (the live stream may also
have been trimmed or lost meanwhile). A hub nobody has used for ``idle_s`` is dropped with its cached views.

When the gateway shuts down (:meth:`Hubs.stop`) the readers stop and every hub wakes whoever waits on it: a
command's waiter gets None (no result came), a listener the notice :data:`CLOSING`, and no wait starts any more.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from schemas.codec import result_entry
from schemas.envelopes import CommandResult, ViewRecord
from services import metrics
from services.gateway.store import GatewayStore
from services.logs import error_text, get_logger
from services.pipeline.backoff import Backoff

log = get_logger("gateway")
ANY_KEY = "*"  # an Update for every view key: read your record again
READY_WAIT_S = 5.0  # how long a hub asked for waits for the readers' first positions (Redis may be down)
READ_COUNT = 2000  # entries a read takes at most per stream
RESYNC_BATCH = 500  # recorded results asked for in one pipeline when resyncing


@dataclass(frozen=True, slots=True)
class Update:
    key: str
    version: int


@dataclass(frozen=True, slots=True)
class Closing:
    """The last notice a listener gets: the gateway is shutting down, no more will come."""


CLOSING = Closing()
RESYNC = Update(ANY_KEY, 0)  # the reader lost its connection for a while: whatever was announced, read again
Notice = Update | CommandResult | Closing


class Receiver(Protocol):
    """Whatever a hub hands its notices to, at once and in order: :class:`Listener` (a queue, for a waiting long
    poll) or a WebSocket view feed (services.gateway.feed), which must not block."""

    def put(self, notice: Notice) -> None: ...


class Listener:
    """A waiter's inbox. Views are snapshots, so when it overflows the oldest notices go."""

    def __init__(self, maxsize: int = 1024) -> None:
        self.queue: asyncio.Queue[Notice] = asyncio.Queue(maxsize)

    def put(self, notice: Notice) -> None:
        if self.queue.full():
            with contextlib.suppress(asyncio.QueueEmpty):
                self.queue.get_nowait()
        self.queue.put_nowait(notice)


class MatchHub:
    """One watched match in this gateway: the commands waiting for their results, the listeners of its views,
    and its newest view records (fetched once per announced version for every subscriber). It reads nothing
    itself: :class:`Hubs` hands it the match's announcements. ``feeds``: the WebSocket view feeds of the match
    by view key (services.gateway.feed), each one of the listeners."""

    def __init__(self, store: GatewayStore, match_id: str) -> None:
        self.store = store
        self.match_id = match_id
        self.listeners: set[Receiver] = set()
        self.feeds: dict[str, Any] = {}
        self.waiters: dict[str, list[asyncio.Future[CommandResult | None]]] = {}
        self.versions: dict[str, int] = {}
        self._records: dict[str, ViewRecord] = {}
        self.closed = False
        self.used = time.monotonic()

    @property
    def alive(self) -> bool:
        return not self.closed

    def busy(self) -> bool:
        return bool(self.listeners or self.waiters)

    # -- what the readers hand over ----------------------------------------------------------------
    def on_result(self, result: CommandResult) -> None:
        for future in self.waiters.pop(result.command_id, []):
            if not future.done():
                future.set_result(result)
        for listener in list(self.listeners):
            listener.put(result)

    def on_update(self, update: Update) -> None:
        if update.version > self.versions.get(update.key, 0):
            self.versions[update.key] = update.version
        for listener in list(self.listeners):
            listener.put(update)

    def resync(self) -> None:
        """Announcements may have been missed: forget the cached views and tell every listener to read again."""
        self._records.clear()
        for listener in list(self.listeners):
            listener.put(RESYNC)

    # -- registering -------------------------------------------------------------------------------
    def expect(self, command_id: str) -> asyncio.Future[CommandResult | None]:
        """A future for the command's result; register before publishing the command. Its result is None
        when the hub closed first (the gateway is shutting down)."""
        self.used = time.monotonic()
        future: asyncio.Future[CommandResult | None] = asyncio.get_running_loop().create_future()
        if self.closed:
            future.set_result(None)
        else:
            self.waiters.setdefault(command_id, []).append(future)
        return future

    def forget(self, command_id: str, future: asyncio.Future[CommandResult | None]) -> None:
        futures = self.waiters.get(command_id, [])
        if future in futures:
            futures.remove(future)
        if not futures:
            self.waiters.pop(command_id, None)
        self.used = time.monotonic()

    def add_listener(self, listener: Receiver | None = None) -> Any:
        """Register ``listener`` (by default a new :class:`Listener`) now (no await between :meth:`Hubs.get` and
        this keeps the hub alive) and return it."""
        receiver: Receiver = listener if listener is not None else Listener()
        self.listeners.add(receiver)
        if self.closed:
            receiver.put(CLOSING)
        return receiver

    def remove_listener(self, listener: Receiver) -> None:
        self.listeners.discard(listener)
        self.used = time.monotonic()

    @contextlib.asynccontextmanager
    async def listen(self, listener: Listener | None = None) -> AsyncIterator[Listener]:
        listener = listener or self.add_listener()
        try:
            yield listener
        finally:
            self.remove_listener(listener)

    async def record(self, key: str) -> ViewRecord | None:
        """The newest view record of ``key``, fetched once per announced version for all subscribers."""
        cached = self._records.get(key)
        if cached is not None and cached.version >= self.versions.get(key, 0):
            return cached
        record = await self.store.view(self.match_id, key)
        cached = self._records.get(key)  # another subscriber may have fetched a newer one meanwhile
        if record is not None and (cached is None or record.version > cached.version):
            self._records[key] = record
            self.versions[key] = max(self.versions.get(key, 0), record.version)
        return self._records.get(key)

    def stop(self) -> None:
        """Wake everyone waiting: waiters get None, listeners :data:`CLOSING`."""
        self.closed = True
        for futures in self.waiters.values():
            for future in futures:
                if not future.done():
                    future.set_result(None)
        self.waiters.clear()
        for listener in list(self.listeners):
            listener.put(CLOSING)


class Hubs:
    """The watched matches of this gateway process, and the few readers that feed them (module docstring)."""

    def __init__(self, store: GatewayStore, block_ms: int = 5000, idle_s: float = 30.0) -> None:
        self.store = store
        self.block_ms = block_ms
        self.idle_s = idle_s
        self._hubs: dict[str, MatchHub] = {}
        self._readers: list[asyncio.Task[None]] = []
        self._ready = asyncio.Event()
        self._swept = time.monotonic()
        self._pending_groups = 0
        self.failing = False  # the last read failed: Redis is not reachable from here
        self.stopping = False

    # -- hubs --------------------------------------------------------------------------------------
    async def get(self, match_id: str) -> MatchHub:
        """The match's hub (the readers started). Once stopping, a closed one: nothing waits on it."""
        if not self._readers and not self.stopping:
            self.start()
        if not self._ready.is_set() and not self.stopping:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._ready.wait(), READY_WAIT_S)
        hub = self._hubs.get(match_id)
        if hub is None:
            hub = MatchHub(self.store, match_id)
            if self.stopping:
                hub.stop()
            else:
                self._hubs[match_id] = hub
                metrics.GATEWAY_HUBS.set(len(self._hubs))
        hub.used = time.monotonic()
        return hub

    def __len__(self) -> int:
        return len(self._hubs)

    def sweep(self, now: float | None = None) -> int:
        """Drop the hubs nobody waits on or listens to and nobody asked for in ``idle_s``; how many went."""
        now = time.monotonic() if now is None else now
        self._swept = now
        idle = [m for m, h in self._hubs.items() if not h.busy() and now - h.used > self.idle_s]
        for match_id in idle:
            del self._hubs[match_id]
        metrics.GATEWAY_HUBS.set(len(self._hubs))
        return len(idle)

    # -- readers -----------------------------------------------------------------------------------
    def start(self) -> None:
        """Start the readers: one over every partition on one server, one per partition on a cluster."""
        if self._readers or self.stopping:
            return
        partitions = list(range(self.store.keys.partitions))
        groups = [[p] for p in partitions] if self.store.per_slot_reads else [partitions]
        self._pending_groups = len(groups)
        self._readers = [asyncio.create_task(self._read(g), name=f"live-{g[0]}") for g in groups]

    async def _read(self, partitions: Sequence[int]) -> None:
        k = self.store.keys
        positions: dict[str, str] = {}
        backoff = Backoff(0.25, 1.0)  # Redis back: reading again within a second
        while not positions:
            try:
                positions = await self.store.stream_ends([k.live(p) for p in partitions])
            except asyncio.CancelledError:
                raise
            except Exception as e:  # Redis not there yet: hubs wait READY_WAIT_S at most, then go on without
                pause_s = backoff.next_s()
                self._failed(partitions, e, pause_s)
                await asyncio.sleep(pause_s)
        self._pending_groups -= 1
        if self._pending_groups <= 0:
            self._ready.set()
        broken = self.failing
        while True:
            if time.monotonic() - self._swept > self.idle_s / 2:
                self.sweep()
            try:
                reply = await self.store.read_live(positions, self.block_ms, READ_COUNT)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # the waiters time out and look in the record; resynced when back
                pause_s = backoff.next_s()
                self._failed(partitions, e, pause_s)
                broken = True
                await asyncio.sleep(pause_s)
                continue
            backoff.reset()
            self.failing = False
            if broken:
                broken = False
                await self._resync()
            self._dispatch(reply, positions)

    def _failed(self, partitions: Sequence[int], e: Exception, pause_s: float) -> None:
        self.failing = True
        metrics.GATEWAY_LIVE_READ_FAILURES.inc()
        log.warning("live read failed", partitions=f"{partitions[0]}..{partitions[-1]}", error=error_text(e),
                    retry_in_s=pause_s)

    def _dispatch(self, reply: list[tuple[bytes, list[tuple[bytes, dict[bytes, bytes]]]]],
                  positions: dict[str, str]) -> None:
        hubs = self._hubs
        newest_ms = 0
        for stream, entries in reply:
            if not entries:
                continue
            positions[stream.decode()] = entries[-1][0].decode()
            newest_ms = max(newest_ms, int(entries[-1][0].split(b"-")[0]))
            metrics.GATEWAY_LIVE_ENTRIES.inc(len(entries))
            for entry_id, fields in entries:
                match = fields.get(b"m")
                hub = hubs.get(match.decode()) if match is not None else None
                if hub is None:  # a match this gateway does not watch
                    continue
                try:
                    if b"r" in fields:
                        hub.on_result(result_entry(fields, hub.match_id))
                    else:
                        version = int(fields[b"v"])
                        for key in fields[b"k"].decode().split(","):  # every view written at that version
                            hub.on_update(Update(key, version))
                except Exception as e:  # an unreadable entry is skipped, never read again and again
                    log.error("unreadable entry", match_id=hub.match_id, entry=entry_id, error=repr(e))
        if newest_ms:
            metrics.GATEWAY_LIVE_LAG.set(max(0.0, time.time() - newest_ms / 1000))

    async def _resync(self) -> None:
        """After a broken read: the recorded results of every waiting command, and every listener reads again."""
        waiting = [(hub, cid) for hub in list(self._hubs.values()) for cid in list(hub.waiters)]
        log.info("live reads resumed", hubs=len(self._hubs), waiting=len(waiting))
        for hub in list(self._hubs.values()):
            hub.resync()
        for i in range(0, len(waiting), RESYNC_BATCH):
            batch = waiting[i:i + RESYNC_BATCH]
            try:
                found = await self.store.results([(hub.match_id, cid) for hub, cid in batch])
            except Exception as e:  # failing again: the waiters look in the record when their time is up
                log.warning("resync failed", error=error_text(e))
                return
            for (hub, _), result in zip(batch, found, strict=True):
                if result is not None:
                    hub.on_result(result)

    # -- stopping ----------------------------------------------------------------------------------
    def stop(self) -> None:
        """The gateway is shutting down: the readers stop, every hub wakes its waiters, and so will any hub asked
        for later."""
        self.stopping = True
        self._ready.set()
        for task in self._readers:
            task.cancel()
        for hub in self._hubs.values():
            hub.stop()

    async def close(self, wait_s: float = 0.5) -> None:
        """Stop, and wait up to ``wait_s`` for the readers to end: a cancelled blocking read may only end with its
        block (redis-py reads the reply of a cancelled command); closing the reader's client ends it at once."""
        self.stop()
        if self._readers:
            await asyncio.wait(self._readers, timeout=wait_s)
        self._readers.clear()
        self._hubs.clear()
