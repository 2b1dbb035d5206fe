"""What the gateway's WebSockets watch: one :class:`Feed` per watched view (a match's public view, or one seat's)
in this process, whatever the number of sockets watching it, and one :class:`Watch` per subscription.

A feed is one listener of its match's hub (services.gateway.hub), called at once with each notice. An
announced version of its view is fetched **once** for all its watchers (one task, only while there is
something to fetch), served (:meth:`Gateway.served`) once, and encoded once per wire format: every watcher
that is behind gets the same text (JSON) or bytes (msgpack). A watch that wants events too reads them itself,
in a task of its own that lives only while it catches up, so that the events of version <= n go out before
the view of version n. A seat's feed also hands the seat's command results to its watches; the results of the
commands a watch's own socket sent are answered there, not pushed (``own``). Nothing is queued per watch:
views are snapshots, and a socket's messages wait in its session's outbox (services.gateway.ws).

A watch goes through three phases: ``WAITING`` (registered, ``subscribed`` not sent yet: the views offered are
ignored, the feed offers the newest one when the watch starts), ``STARTING`` (waiting for its first view: the
results are held back), ``LIVE``. A view record that cannot be read (Redis restarting) is read again after a
growing pause; any other failure stops the feed's watches with an ``error`` (``subscribe again``).
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

import msgpack
import redis.exceptions
from pydantic import BaseModel

from schemas.envelopes import CommandResult, ViewRecord
from schemas.gateway import ErrorMessage, ResultMessage, Subscribe, ViewMessage, view_fields
from services.gateway.hub import ANY_KEY, MatchHub, Notice, Update
from services.gateway.service import Gateway, Seat, for_client
from services.logs import get_logger
from services.pipeline.backoff import Backoff

if TYPE_CHECKING:
    from services.gateway.ws import Session

log = get_logger("gateway")
PUBLIC = "public"
STAMP_S = 1.0  # a view frame encoded once is sent to every socket for at most this long (its server_ms ages)


def message(record: ViewRecord) -> BaseModel:
    """``record`` as a view message stamped with the gateway's time (``server_ms``: clocks count down from it)."""
    return ViewMessage.model_construct(**{**view_fields(record), "server_ms": int(time.time() * 1000)})
WAITING, STARTING, LIVE = 0, 1, 2


def packed(message: BaseModel) -> bytes:
    return msgpack.packb(message.model_dump(mode="json"), use_bin_type=True)  # type: ignore[no-any-return]


def encode(message: BaseModel, binary: bool) -> str | bytes:
    """A server message as sent: msgpack for a client that speaks it, else JSON text."""
    return packed(message) if binary else message.model_dump_json()


class Feed:
    """The watches of one view of one match in this process (module docstring)."""

    __slots__ = ("_encoded_at", "_packed", "_text", "fresh", "gateway", "hub", "key", "record", "task", "watches")

    def __init__(self, hub: MatchHub, key: str, gateway: Gateway) -> None:
        self.hub = hub
        self.key = key
        self.gateway = gateway
        self.watches: set[Watch] = set()
        self.record: ViewRecord | None = None  # the newest record as served
        self.fresh = False  # ``record`` is the newest announced (no announcement since it was read)
        self.task: asyncio.Task[None] | None = None  # reading the record, while it is not fresh
        self._text: str | None = None  # ``record`` as a JSON view message
        self._packed: bytes | None = None  # ... and as a msgpack one
        self._encoded_at = 0.0  # (monotonic) when those were encoded

    @staticmethod
    def join(hub: MatchHub, key: str, gateway: Gateway, watch: Watch) -> Feed:
        """The hub's feed of ``key`` (registered with the hub when new), with ``watch`` added."""
        feed: Feed | None = hub.feeds.get(key)
        if feed is None:
            feed = hub.feeds[key] = Feed(hub, key, gateway)
            hub.add_listener(feed)
        feed.watches.add(watch)
        return feed

    def leave(self, watch: Watch) -> None:
        self.watches.discard(watch)
        if self.watches:
            return
        if self.hub.feeds.get(self.key) is self:
            del self.hub.feeds[self.key]
        self.hub.remove_listener(self)
        if self.task is not None:
            self.task.cancel()
            self.task = None

    # -- what the hub hands over -------------------------------------------------------------------
    def put(self, notice: Notice) -> None:
        if isinstance(notice, Update):
            if notice.key != self.key and notice.key != ANY_KEY:
                return
            if notice.version and self.fresh and self.record is not None and notice.version <= self.record.version:
                return  # announced before the record was read: nothing new
            self.fresh = False
            self.refresh()
        elif isinstance(notice, CommandResult) and self.key != PUBLIC:
            for watch in list(self.watches):
                watch.result(notice)
        # Closing: the gateway is shutting down, and closes the sockets itself (Session.going_away)

    def start(self, watch: Watch) -> None:
        """``watch`` just sent ``subscribed``: offer it the newest record, now if known, else once read."""
        if self.fresh and self.task is None:
            watch.offer(self.record)
        else:
            self.refresh()  # offers what it reads to every watch, this one too

    def refresh(self) -> None:
        if self.task is None and self.watches:
            self.task = asyncio.create_task(self._refresh())

    async def _refresh(self) -> None:
        backoff = Backoff(0.2, 2.0)
        try:
            while not self.fresh and self.watches:
                self.fresh = True  # an announcement during the read makes it stale again: read once more
                try:
                    # as served: a match waiting for players gives version 0, so nothing is sent until it begins
                    record = await self.gateway.served(self.hub.match_id, await self.hub.record(self.key))
                except redis.exceptions.RedisError as e:  # Redis restarting: read again in a moment
                    self.fresh = False
                    pause_s = backoff.next_s()
                    log.info("view read failed", match_id=self.hub.match_id, error=repr(e), retry_in_s=pause_s)
                    await asyncio.sleep(pause_s)
                    continue
                backoff.reset()
                if record is not self.record:
                    self.record, self._text, self._packed = record, None, None
                for watch in list(self.watches):
                    watch.offer(record)
        except asyncio.CancelledError:
            raise
        except Exception as e:
            log.warning("subscription failed", match_id=self.hub.match_id, error=repr(e))
            self.fresh = False
            for watch in list(self.watches):
                watch.fail()
        finally:
            if self.task is asyncio.current_task():
                self.task = None

    def frame(self, record: ViewRecord, binary: bool) -> str | bytes:
        """``record`` as a view message: encoded once per format while it is the newest."""
        if record is not self.record:
            return encode(message(record), binary)
        now = time.monotonic()
        if now - self._encoded_at > STAMP_S:  # its server_ms stays within STAMP_S of the time it is sent
            self._packed = self._text = None
            self._encoded_at = now
        if binary:
            if self._packed is None:
                self._packed = packed(message(record))
            return self._packed
        if self._text is None:
            self._text = message(record).model_dump_json()
        return self._text


class Watch:
    """One subscription of one socket: which view it follows and what it has sent of it (module docstring)."""

    __slots__ = (
        "cid",
        "events",
        "events_sent",
        "feed",
        "game",
        "held",
        "match_id",
        "opened",
        "own",
        "pending",
        "phase",
        "seat",
        "sent",
        "session",
        "task",
        "texts",
    )

    def __init__(self, session: Session, msg: Subscribe, seat: Seat | None, game: str) -> None:
        self.session = session
        self.match_id = msg.match_id
        self.seat = seat
        self.cid = msg.cid
        self.events = msg.events
        self.texts = msg.texts
        self.game = game
        self.sent = msg.after_version  # the last view the client has
        self.events_sent = msg.after_version if msg.events_after_version is None else msg.events_after_version
        self.opened = False  # an open match's record (version 0: nobody acts) was sent
        self.phase = WAITING
        self.pending: ViewRecord | None = None  # the newest record offered while catching up on events
        self.held: list[BaseModel] | None = None  # results before the first view
        self.own: set[str] | None = None  # command ids sent on this socket: their results carry a cid
        self.feed: Feed | None = None
        self.task: asyncio.Task[None] | None = None  # catching up on events

    @property
    def key(self) -> str:
        return PUBLIC if self.seat is None else str(self.seat.seat)

    def start(self) -> None:
        self.phase = STARTING
        if self.feed is not None:
            self.feed.start(self)

    def close(self) -> None:
        """Unsubscribed: leave the feed, stop catching up."""
        if self.feed is not None:
            self.feed.leave(self)
            self.feed = None
        if self.task is not None:
            self.task.cancel()
            self.task = None

    def fail(self) -> None:
        """The subscription stopped: say so; the client may subscribe again."""
        self.close()
        self.session.send(ErrorMessage(cid=self.cid, code="unavailable",
                                       message="the subscription stopped; subscribe again"))

    def expect(self, command_id: str) -> None:
        """A command sent on this socket: its result is the answer, not pushed."""
        if self.own is None:
            self.own = set()
        self.own.add(command_id)

    # -- from the feed -----------------------------------------------------------------------------
    def offer(self, record: ViewRecord | None) -> None:
        """The newest record of the view (None: none yet)."""
        if self.phase == WAITING:
            return
        if self.task is not None:  # catching up on events: it takes the newest when done
            if record is not None:
                self.pending = record
            return
        if record is not None and self.events and record.version > self.events_sent:
            self.pending = record
            self.task = asyncio.create_task(self._catch_up())
            return
        if record is not None:
            self._view(record)
        if self.phase == STARTING:
            self._live()

    def result(self, result: CommandResult) -> None:
        if self.seat is None or result.seat not in (self.seat.seat, None):
            return
        if self.own is not None and result.command_id in self.own:
            self.own.discard(result.command_id)
            return
        if not result.command_id.startswith(f"{self.seat.seat}."):
            return
        message = ResultMessage.model_construct(cid=None, result=for_client(result, self.seat.seat), pending=None)
        if self.phase == LIVE:
            self.session.send(message)
        elif self.held is None:
            self.held = [message]
        else:
            self.held.append(message)

    # -- to the socket -----------------------------------------------------------------------------
    def _view(self, record: ViewRecord) -> None:
        # an open match's record (version 0) is sent once, so a page shows the table
        if record.version > self.sent or (record.version == self.sent == 0 and not self.opened):
            self.opened = True
            frame = (self.feed.frame(record, self.session.binary) if self.feed is not None
                     else encode(message(record), self.session.binary))
            self.session.push(frame)
            self.sent = record.version

    def _live(self) -> None:
        self.phase = LIVE
        held, self.held = self.held, None
        for message in held or ():
            self.session.send(message)

    async def _catch_up(self) -> None:
        """The events up to the newest offered record, then that record; again while newer ones come."""
        backoff = Backoff(0.2, 2.0)
        seat = self.seat.seat if self.seat is not None else None
        try:
            while self.pending is not None:
                record = self.pending
                try:
                    if record.version > self.events_sent:
                        self.events_sent = await self.session.events(self.match_id, self.game, seat,
                                                                     self.events_sent, record.version, self.texts)
                except redis.exceptions.RedisError as e:  # Redis restarting: read again in a moment
                    pause_s = backoff.next_s()
                    log.info("event read failed", match_id=self.match_id, error=repr(e), retry_in_s=pause_s)
                    await asyncio.sleep(pause_s)
                    continue
                backoff.reset()
                if self.pending is record:
                    self.pending = None
                self._view(record)
                if self.phase == STARTING:
                    self._live()
        except asyncio.CancelledError:
            raise
        except Exception as e:
            log.warning("subscription failed", match_id=self.match_id, error=repr(e))
            self.pending = None
            self.task = None
            self.fail()
        finally:
            if self.task is asyncio.current_task():
                self.task = None

