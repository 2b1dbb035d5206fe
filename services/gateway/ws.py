"""The gateway's WebSocket (docs/gateway.md): subscribe to a seat's or the public view (and events),
send commands, get the seat's own results. One writer task per socket keeps the messages in order; one
forwarder task per subscription turns its match hub's notices into messages. When the gateway shuts down,
every socket is closed with 1001 (going away) once the messages queued for it are sent.

A process holds at most ``AIRSHIP_GATEWAY_MAX_SOCKETS`` WebSockets: past it a new one is accepted and closed at
once with 1013 (try again later). A socket that holds no subscription for ``AIRSHIP_GATEWAY_WS_IDLE_S`` is
closed with 1000: every use of a socket (views, events, commands) needs one."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from typing import Any

import msgpack
import redis.exceptions
from fastapi import FastAPI, WebSocket, WebSocketDisconnect
from pydantic import BaseModel

from schemas.envelopes import CommandResult
from schemas.gateway import (
    ErrorMessage,
    EventMessage,
    Pending,
    Pong,
    ResultMessage,
    SendCommand,
    Subscribe,
    Subscribed,
    Unsubscribe,
    Unsubscribed,
    ViewMessage,
    WsCommand,
    view_fields,
)
from services import metrics
from services.gateway.conns import Throttled
from services.gateway.hub import ANY_KEY, Closing, Update
from services.gateway.limits import RateLimiter, tarpit
from services.gateway.service import Seat, for_client
from services.gateway.wire import Refused, decode_bytes, validate
from services.logs import get_logger
from services.pipeline.backoff import Backoff

log = get_logger("gateway")
KINDS: dict[str, type[BaseModel]] = {"subscribe": Subscribe, "command": WsCommand, "unsubscribe": Unsubscribe}
_ids = itertools.count()
GOING_AWAY = 1001
SHUTTING_DOWN = "the gateway is shutting down; connect again"
TRY_AGAIN_LATER = 1013
AT_CAPACITY = "the gateway holds all the sockets it can; try again later"
_refusals = Throttled()
REFUSALS_TO_CLOSE, REFUSAL_WINDOW_S = 16, 10.0  # refused messages within the window that close the socket (1008)
MESSAGE_COSTS = {"ping": 1, "unsubscribe": 1, "command": 2, "subscribe": 3}  # as limits.COSTS, per message


class Subscription:
    def __init__(self, match_id: str, seat: Seat | None, task: asyncio.Task[None] | None = None) -> None:
        self.match_id = match_id
        self.seat = seat
        self.task = task
        self.own: set[str] = set()  # command ids sent on this socket: their results carry a cid


class Session:
    def __init__(self, ws: WebSocket, st: Any, address: str = "") -> None:
        self.ws = ws
        self.st = st
        self.address = address  # the client's address key (its open sockets are counted under it)
        self.gateway = st.gateway
        self.binary = False
        self.outbox: asyncio.Queue[BaseModel | None] = asyncio.Queue(4096)
        self.subs: dict[str, Subscription] = {}
        self.tasks: set[asyncio.Task[Any]] = set()
        rps = st.settings.gateway_socket_rps
        self.rate = RateLimiter(rps, int(rps * 4))
        self.id = str(next(_ids))
        self.refused = 0  # messages refused since refused_since (a window of REFUSAL_WINDOW_S)
        self.refused_since = 0.0
        self.bare_since: float | None = None  # since when the socket holds no subscription (set once accepted)
        self.idle_timer: asyncio.TimerHandle | None = None

    async def run(self) -> None:
        await self.ws.accept()
        metrics.GATEWAY_SOCKETS.inc()
        writer = asyncio.create_task(self._write())
        self.st.sessions.add(self)
        self.bare_since = time.monotonic()
        self._watch_idle()
        try:
            await self._read()
        except WebSocketDisconnect:
            pass
        finally:
            if self.idle_timer is not None:
                self.idle_timer.cancel()
            self.st.sessions.discard(self)
            await self._close(writer)
            metrics.GATEWAY_SOCKETS.dec()

    def going_away(self) -> None:
        """The gateway is shutting down: stop the subscriptions, send what is queued, then close with 1001."""
        for match_id in list(self.subs):
            self._unsubscribe(match_id)
        if self.outbox.full():  # a client that does not read gets no more of its backlog
            self._spawn(self.ws.close(code=GOING_AWAY, reason=SHUTTING_DOWN))
        else:
            self.outbox.put_nowait(None)  # the writer's last message: close

    def _watch_idle(self) -> None:
        """Close the socket once it has held no subscription for ``AIRSHIP_GATEWAY_WS_IDLE_S``; else look again
        when that could first be true."""
        idle_s = self.st.settings.gateway_ws_idle_s
        wait_s = idle_s
        if self.bare_since is not None:
            wait_s = self.bare_since + idle_s - time.monotonic()
            if wait_s <= 0:
                self.idle_timer = None
                metrics.GATEWAY_CONNECTIONS_TIMED_OUT.labels("websocket").inc()
                self._spawn(self.ws.close(code=1000, reason=f"no subscription for {idle_s:g} s"))
                return
        self.idle_timer = asyncio.get_running_loop().call_later(wait_s, self._watch_idle)

    # -- in ----------------------------------------------------------------------------------------
    async def _read(self) -> None:
        while True:
            message = await self.ws.receive()
            if message["type"] == "websocket.disconnect":
                return
            raw: bytes | None = message.get("bytes")
            text: str | None = message.get("text")
            self.binary = raw is not None
            data = raw if raw is not None else (text or "").encode()
            cid = None
            try:
                cap = self.st.settings.gateway_max_body
                if len(data) > cap:
                    raise Refused(413, "too_large", f"a message may have at most {cap} bytes")
                obj = decode_bytes(data, self.binary)
                cid = obj.get("cid") if isinstance(obj, dict) and isinstance(obj.get("cid"), str) else None
                await self._admit(obj)
                await self._handle(obj)
            except Refused as e:
                self.send(ErrorMessage(cid=cid[:64] if cid else None, code=e.code, message=e.detail))
                if self._too_many_refused():  # a flood of refused messages ends with its socket
                    metrics.GATEWAY_LIMIT_REFUSALS.labels("socket_refusals").inc()
                    await self.ws.close(code=1008, reason=f"{REFUSALS_TO_CLOSE} messages refused within "
                                                          f"{REFUSAL_WINDOW_S:g} s")
                    return
            if self.ws.client_state.name == "DISCONNECTED":
                return

    def _too_many_refused(self) -> bool:
        now = time.monotonic()
        if now - self.refused_since > REFUSAL_WINDOW_S:
            self.refused_since, self.refused = now, 0
        self.refused += 1
        return self.refused >= REFUSALS_TO_CLOSE

    async def _admit(self, obj: Any) -> None:
        """Spend the message's cost (:data:`MESSAGE_COSTS`) from the socket's rate and its address's (shared with
        every request of that address, on every gateway); refused past either, held back first (the tarpit)."""
        kind = obj.get("kind") if isinstance(obj, dict) else None
        cost = MESSAGE_COSTS.get(kind, 1) if isinstance(kind, str) else 1
        wait = self.rate.retry_after_s(self.id, cost)
        if wait > 0:
            await tarpit(wait)
            raise Refused(429, "rate_limited", "too many messages on this socket; slow down")
        if not await self.st.limits.allowed(self.st.limits.address_rate, self.address, cost):
            raise Refused(429, "rate_limited", "too many requests from this address; slow down")

    async def _handle(self, obj: Any) -> None:
        kind = obj.get("kind") if isinstance(obj, dict) else None
        if kind == "ping":
            cid = obj.get("cid")  # echoed as every answer's cid is: at most 64 characters
            self.send(Pong(cid=cid[:64] if isinstance(cid, str) else None))
            return
        model = KINDS.get(kind) if isinstance(kind, str) else None
        if model is None:
            raise Refused(400, "bad_request", "kind must be one of subscribe, command, unsubscribe, ping", "kind")
        message = validate(model, obj, "message")
        if isinstance(message, Subscribe):
            await self._subscribe(message)
        elif isinstance(message, WsCommand):
            self._spawn(self._command(message))
        elif isinstance(message, Unsubscribe):
            self._unsubscribe(message.match_id)
            self.send(Unsubscribed(cid=message.cid, match_id=message.match_id))

    async def _subscribe(self, msg: Subscribe) -> None:
        seat = await self.gateway.authenticate(msg.match_id, msg.token) if msg.token else None
        meta = await self.gateway.meta(msg.match_id)
        self._unsubscribe(msg.match_id)
        if seat is not None and not await self.st.limits.acquire(self.st.limits.token_sockets, seat.token):
            await self.ws.close(code=1008, reason="too many open sockets for this seat token")
            return
        sub = Subscription(msg.match_id, seat)
        self.subs[msg.match_id] = sub
        self.bare_since = None
        hub = await self.gateway.hubs.get(msg.match_id)
        listener = hub.add_listener()
        ready = asyncio.Event()
        sub.task = asyncio.create_task(self._forward(sub, hub, listener, msg, meta.game, ready))
        await ready.wait()

    def _unsubscribe(self, match_id: str) -> None:
        sub = self.subs.pop(match_id, None)
        if sub is None:
            return
        if not self.subs:
            self.bare_since = time.monotonic()
        if sub.task is not None:
            sub.task.cancel()
        if sub.seat is not None:
            self.st.limits.release(self.st.limits.token_sockets, sub.seat.token)

    async def _command(self, msg: WsCommand) -> None:
        sub = self.subs.get(msg.match_id)
        if sub is None or sub.seat is None:
            self.send(ErrorMessage(cid=msg.cid, code="unauthorized",
                                   message="subscribe to the match with a seat token before sending commands"))
            return
        try:
            await self.st.limits.token(sub.seat.token)
            command = SendCommand.model_construct(idempotency_key=msg.idempotency_key, type=msg.type,
                                                  body=msg.body, expected_version=msg.expected_version)
            sub.own.add(f"{sub.seat.seat}.{msg.idempotency_key}")
            result = await self.gateway.send(sub.seat, command, 30.0)
        except Refused as e:
            self.send(ErrorMessage(cid=msg.cid, code=e.code, message=e.detail))
            return
        except Exception as e:  # Redis unavailable: the client may send the same key again
            log.warning("websocket command failed", error=repr(e))
            self.send(ErrorMessage(cid=msg.cid, code="unavailable", message="the service's store is unavailable"))
            return
        if result is None:
            location = f"/matches/{msg.match_id}/commands/{msg.idempotency_key}"
            self.send(ResultMessage(cid=msg.cid, pending=Pending(idempotency_key=msg.idempotency_key,
                                                                 location=location)))
        else:
            self.send(ResultMessage.model_construct(cid=msg.cid, result=result, pending=None))

    # -- forwarding --------------------------------------------------------------------------------
    async def _forward(self, sub: Subscription, hub: Any, listener: Any, msg: Subscribe, game: str,
                       ready: asyncio.Event) -> None:
        seat = sub.seat.seat if sub.seat is not None else None
        key = "public" if seat is None else str(seat)
        sent = msg.after_version  # the last view the client has
        events_sent = msg.after_version if msg.events_after_version is None else msg.events_after_version  # event
        try:
            async with hub.listen(listener):
                version = await self.gateway.store.version(msg.match_id)
                self.send(Subscribed(cid=msg.cid, match_id=msg.match_id, seat=seat, version=version))
                ready.set()
                notice: Any = Update(key, 0)
                opened_sent = False
                backoff = Backoff(0.2, 2.0)
                while True:
                    behind = min(sent, events_sent) if msg.events else sent
                    fresh = isinstance(notice, Update) and (notice.version == 0 or notice.version > behind)
                    if fresh and notice.key in (key, ANY_KEY):
                        try:
                            # as served: a match waiting for players gives version 0, so nothing is sent until it
                            # begins
                            record = await self.gateway.served(msg.match_id, await hub.record(key))
                            if record is not None and msg.events and record.version > events_sent:
                                events_sent = await self._events(msg.match_id, game, seat, events_sent,
                                                                 record.version)
                            # an open match's record (version 0: nobody acts) is sent once, so a page shows the table
                            if record is not None and (record.version > sent
                                                       or (record.version == sent == 0 and not opened_sent)):
                                opened_sent = True
                                self.send(ViewMessage.model_construct(**view_fields(record)))
                                sent = record.version
                            backoff.reset()
                        except redis.exceptions.RedisError as e:  # Redis restarting: read again in a moment
                            pause_s = backoff.next_s()
                            log.info("view read failed", match_id=msg.match_id, error=repr(e), retry_in_s=pause_s)
                            await asyncio.sleep(pause_s)
                            notice = Update(key, 0)
                            continue
                    elif isinstance(notice, Closing):  # the gateway is shutting down: the socket closes
                        return
                    elif isinstance(notice, CommandResult) and seat is not None and notice.seat in (seat, None):
                        if notice.command_id in sub.own:
                            sub.own.discard(notice.command_id)
                        elif notice.command_id.startswith(f"{seat}."):
                            self.send(ResultMessage.model_construct(cid=None, result=for_client(notice, seat),
                                                                    pending=None))
                    notice = await listener.queue.get()
        except asyncio.CancelledError:
            raise
        except Exception as e:
            log.warning("subscription failed", match_id=msg.match_id, error=repr(e))
            self.send(ErrorMessage(cid=msg.cid, code="unavailable",
                                   message="the subscription stopped; subscribe again"))
        finally:
            ready.set()

    async def _events(self, match_id: str, game: str, seat: int | None, after: int, upto: int) -> int:
        for event in await self.gateway.events_for(match_id, game, seat, after):
            if event.version > upto:
                break
            self.send(EventMessage(match_id=match_id, event=event))
            after = event.version
        return after

    # -- out ---------------------------------------------------------------------------------------
    def send(self, message: BaseModel) -> None:
        if self.outbox.full():  # a client that does not read: drop it rather than hold memory
            self._spawn(self.ws.close(code=1008, reason="not reading"))
            return
        self.outbox.put_nowait(message)

    async def _write(self) -> None:
        while True:
            message = await self.outbox.get()
            if message is None:  # going away
                with contextlib.suppress(Exception):  # the peer may be gone already
                    await self.ws.close(code=GOING_AWAY, reason=SHUTTING_DOWN)
                return
            try:
                if self.binary:
                    data: bytes | str = msgpack.packb(message.model_dump(mode="json"), use_bin_type=True)
                else:
                    data = message.model_dump_json()
            except Exception as e:  # a message that cannot be encoded is a bug: say so, skip it, go on
                log.error("websocket message not encodable", kind=getattr(message, "kind", "?"), error=repr(e))
                continue
            try:
                if isinstance(data, bytes):
                    await self.ws.send_bytes(data)
                else:
                    await self.ws.send_text(data)
            except Exception:  # the peer is gone: the read loop sees the disconnect and closes the session
                return

    def _spawn(self, coro: Any) -> None:
        task = asyncio.create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _close(self, writer: asyncio.Task[None]) -> None:
        for match_id in list(self.subs):
            self._unsubscribe(match_id)
        for task in list(self.tasks):
            task.cancel()
        writer.cancel()
        with contextlib.suppress(BaseException):
            await writer


def add_websocket(app: FastAPI) -> None:
    @app.websocket("/ws")
    async def websocket(ws: WebSocket) -> None:
        st = ws.app.state.airship
        address = st.address(ws.headers, ws.client)
        if not await st.limits.allowed(st.limits.address_rate, address):
            await ws.close(code=1008, reason="rate limited")
            return
        if st.stopping:
            await ws.close(code=GOING_AWAY, reason=SHUTTING_DOWN)
            return
        if st.open_sockets >= st.settings.gateway_max_sockets:
            await _refuse_at_capacity(ws, st)
            return
        if not await st.limits.acquire(st.limits.address_sockets, address):  # shared by every gateway
            await ws.accept()
            await ws.close(code=1008, reason="too many open sockets for this address")
            return
        st.open_sockets += 1  # counted before the next await: concurrent handshakes cannot all pass
        try:
            await Session(ws, st, address).run()
        finally:
            st.open_sockets -= 1
            st.limits.release(st.limits.address_sockets, address)


async def _refuse_at_capacity(ws: WebSocket, st: Any) -> None:
    """Accept and close at once with 1013, counted (and logged, throttled): a close code a client can act on,
    where refusing the handshake would only say 403."""
    metrics.GATEWAY_SOCKETS_REFUSED.inc()
    refused = _refusals.count("capacity")
    if refused is not None:
        log.warning("websockets refused", refused=refused, open=st.open_sockets,
                    max_sockets=st.settings.gateway_max_sockets)
    with contextlib.suppress(Exception):  # the client may be gone already
        await ws.accept()
        await ws.close(code=TRY_AGAIN_LATER, reason=AT_CAPACITY)
