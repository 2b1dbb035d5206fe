"""One reader per watched match: a single blocking XREAD over the match's results and view announcements,
fanned out to the HTTP requests waiting for a result or a newer view and to the WebSocket subscriptions.

A hub takes its stream positions before anyone registers with it, so whatever happens after a
registration is seen: a command published after ``expect`` has its result delivered, a view written after
``listen`` is announced. A hub with nobody listening stops after ``idle_s``.

When the gateway shuts down (:meth:`Hubs.stop`) every hub stops reading and wakes whoever waits on it: a
command's waiter gets None (no result came), a listener the notice :data:`CLOSING`, and no wait starts any more.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

from schemas.codec import result_entry
from schemas.envelopes import CommandResult, ViewRecord
from services.gateway.store import GatewayStore
from services.logs import error_text, get_logger
from services.pipeline.backoff import Backoff

log = get_logger("gateway")


@dataclass(frozen=True, slots=True)
class Update:
    key: str
    version: int


@dataclass(frozen=True, slots=True)
class Closing:
    """The last notice a listener gets: the gateway is shutting down, no more will come."""


CLOSING = Closing()
Notice = Update | CommandResult | Closing


class Listener:
    """A subscription's inbox. Views are snapshots, so when it overflows the oldest notices go."""

    def __init__(self, maxsize: int = 1024) -> None:
        self.queue: asyncio.Queue[Notice] = asyncio.Queue(maxsize)

    def put(self, notice: Notice) -> None:
        if self.queue.full():
            with contextlib.suppress(asyncio.QueueEmpty):
                self.queue.get_nowait()
        self.queue.put_nowait(notice)


class MatchHub:
    def __init__(self, store: GatewayStore, match_id: str, block_ms: int = 5000, idle_s: float = 30.0) -> None:
        self.store = store
        self.match_id = match_id
        self.block_ms = block_ms
        self.idle_s = idle_s
        self.listeners: set[Listener] = set()
        self.waiters: dict[str, list[asyncio.Future[CommandResult | None]]] = {}
        self.versions: dict[str, int] = {}
        self._records: dict[str, ViewRecord] = {}
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._positions = ("0-0", "0-0")
        self.closed = False

    async def start(self) -> None:
        if self.closed:
            self._ready.set()
        elif self._task is None:
            self._task = asyncio.create_task(self._run(), name=f"hub-{self.match_id}")
        await self._ready.wait()

    @property
    def alive(self) -> bool:
        return self._task is not None and not self._task.done()

    def busy(self) -> bool:
        return bool(self.listeners or self.waiters)

    async def _run(self) -> None:
        k = self.store.keys
        try:
            self._positions = (await self.store.stream_end(k.results(self.match_id)),
                               await self.store.stream_end(k.updates(self.match_id)))
        finally:
            self._ready.set()
        loop = asyncio.get_running_loop()
        idle_since = loop.time()
        backoff = Backoff(0.5, 5.0)
        while True:
            if self.busy():
                idle_since = loop.time()
            elif loop.time() - idle_since > self.idle_s:
                return
            try:
                reply = await self.store.read_match_streams(self.match_id, *self._positions, self.block_ms)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # Redis restarting: the waiters time out and look in the record
                pause_s = backoff.next_s()
                log.warning("hub read failed", match_id=self.match_id, error=error_text(e), retry_in_s=pause_s)
                await asyncio.sleep(pause_s)
                continue
            backoff.reset()
            self._dispatch(reply)

    def _dispatch(self, reply: list[tuple[bytes, list[tuple[bytes, dict[bytes, bytes]]]]]) -> None:
        results_key = self.store.keys.results(self.match_id).encode()
        results_pos, updates_pos = self._positions
        for stream, entries in reply:
            for entry_id, fields in entries:
                try:
                    if stream == results_key:
                        results_pos = entry_id.decode()
                        self._on_result(result_entry(fields, self.match_id))
                    else:
                        updates_pos = entry_id.decode()
                        version = int(fields[b"v"])
                        for key in fields[b"k"].decode().split(","):  # every view written at that version
                            self._on_update(Update(key, version))
                except Exception as e:  # an unreadable entry is skipped, never read again and again
                    log.error("unreadable entry", match_id=self.match_id, entry=entry_id, error=repr(e))
        self._positions = (results_pos, updates_pos)

    def _on_result(self, result: CommandResult) -> None:
        for future in self.waiters.pop(result.command_id, []):
            if not future.done():
                future.set_result(result)
        for listener in list(self.listeners):
            listener.put(result)

    def _on_update(self, update: Update) -> None:
        if update.version > self.versions.get(update.key, 0):
            self.versions[update.key] = update.version
        for listener in list(self.listeners):
            listener.put(update)

    # -- registering -------------------------------------------------------------------------------
    def expect(self, command_id: str) -> asyncio.Future[CommandResult | None]:
        """A future for the command's result; register before publishing the command. Its result is None
        when the hub closed first (the gateway is shutting down)."""
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

    def add_listener(self) -> Listener:
        """Register a listener now (no await between a hub's start and this keeps the hub alive)."""
        listener = Listener()
        self.listeners.add(listener)
        if self.closed:
            listener.put(CLOSING)
        return listener

    @contextlib.asynccontextmanager
    async def listen(self, listener: Listener | None = None) -> AsyncIterator[Listener]:
        listener = listener or self.add_listener()
        try:
            yield listener
        finally:
            self.listeners.discard(listener)

    async def record(self, key: str) -> ViewRecord | None:
        """The newest view record of ``key``, fetched once per announced version for all subscribers."""
        cached = self._records.get(key)
        if cached is not None and cached.version >= self.versions.get(key, 0):
            return cached
        record = await self.store.view(self.match_id, key)
        if record is not None and (cached is None or record.version > cached.version):
            self._records[key] = record
            self.versions[key] = max(self.versions.get(key, 0), record.version)
        return self._records.get(key)

    def stop(self) -> None:
        """Stop reading and wake everyone waiting: waiters get None, listeners :data:`CLOSING`."""
        self.closed = True
        if self._task is not None:
            self._task.cancel()
        for futures in self.waiters.values():
            for future in futures:
                if not future.done():
                    future.set_result(None)
        self.waiters.clear()
        for listener in list(self.listeners):
            listener.put(CLOSING)

    async def close(self) -> None:
        self.stop()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task


class Hubs:
    """The hubs of this gateway process, one per watched match."""

    def __init__(self, store: GatewayStore, block_ms: int = 5000) -> None:
        self.store = store
        self.block_ms = block_ms
        self._hubs: dict[str, MatchHub] = {}
        self.stopping = False

    async def get(self, match_id: str) -> MatchHub:
        """The match's hub, started. Once stopping, a closed one: nothing waits on it."""
        hub = self._hubs.get(match_id)
        if hub is None or (hub._task is not None and hub._task.done()):
            hub = self._hubs[match_id] = MatchHub(self.store, match_id, self.block_ms)
            hub.closed = self.stopping
        await hub.start()
        return hub

    def __len__(self) -> int:
        return sum(1 for h in self._hubs.values() if h.alive)

    def stop(self) -> None:
        """The gateway is shutting down: every hub stops and wakes its waiters, and so will any hub asked for later."""
        self.stopping = True
        for hub in self._hubs.values():
            hub.stop()

    async def close(self) -> None:
        self.stop()
        for hub in self._hubs.values():
            await hub.close()
        self._hubs.clear()
