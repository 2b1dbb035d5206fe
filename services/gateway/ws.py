"""The gateway's WebSocket (docs/gateway.md): subscribe to a seat's or the public view (and events),
send commands, get the seat's own results. When the gateway shuts down, every socket is closed with 1001
(going away) once the messages queued for it are sent.

A process holds at most ``AIRSHIP_GATEWAY_MAX_SOCKETS`` WebSockets: past it a new one is accepted and closed at
once with 1013 (try again later). A socket that holds no subscription for ``AIRSHIP_GATEWAY_WS_IDLE_S`` is
closed with 1000: every use of a socket (views, events, commands) needs one.

What an idle socket holds is kept small (docs/performance.md, "Live delivery at scale"): the socket is served
as a bare ASGI endpoint past FastAPI's routing and middleware (services.gateway.app.GatewayApp), so its one
task (the read loop) holds few frames; its session has no queue and no writer task until it has something to
send: messages wait in an outbox created with the first one, written in order by a task that ends when the
outbox is empty; a client that lets ``OUTBOX`` messages pile up is closed (1008, not reading). A subscription
is a :class:`~services.gateway.feed.Watch` of its view's :class:`~services.gateway.feed.Feed`: no task and no
queue of its own; the feed fetches and encodes each announced view once for all the sockets watching it."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import time
from typing import Any

from pydantic import BaseModel
from starlette.datastructures import Address, Headers

from schemas.gateway import (
    ErrorMessage,
    EventMessage,
    Pending,
    Pong,
    ResultMessage,
    SendCommand,
    Subscribe,
    Subscribed,
    TextedEventMessage,
    Unsubscribe,
    Unsubscribed,
    WsCommand,
)
from services import metrics
from services.gateway.conns import Throttled
from services.gateway.event_words import event_text
from services.gateway.feed import Feed, Watch, encode
from services.gateway.limits import tarpit
from services.gateway.wire import Refused, decode_bytes, store_refusal, validate
from services.logs import get_logger

log = get_logger("gateway")
KINDS: dict[str, type[BaseModel]] = {"subscribe": Subscribe, "command": WsCommand, "unsubscribe": Unsubscribe}
GOING_AWAY = 1001
SHUTTING_DOWN = "the gateway is shutting down; connect again"
TRY_AGAIN_LATER = 1013
AT_CAPACITY = "the gateway holds all the sockets it can; try again later"
_refusals = Throttled()
REFUSALS_TO_CLOSE, REFUSAL_WINDOW_S = 16, 10.0  # refused messages within the window that close the socket (1008)
MESSAGE_COSTS = {"ping": 1, "unsubscribe": 1, "command": 2, "subscribe": 3}  # as limits.COSTS, per message


LINGER_S = 1.0  # how long a writer waits for more before it ends (a busy socket keeps it)
OUTBOX = 4096  # messages a socket may have waiting; one more and it is closed (1008, not reading)


class Socket:
    """The ASGI side of one WebSocket: what Starlette's ``WebSocket`` does for the gateway, in three slots."""

    __slots__ = ("_send", "closed", "receive")

    def __init__(self, receive: Any, send: Any) -> None:
        self.receive = receive
        self._send = send
        self.closed = False  # a close was sent: nothing more may be

    async def accept(self) -> None:
        await self._send({"type": "websocket.accept"})

    async def close(self, code: int = 1000, reason: str = "") -> None:
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(OSError):  # the peer is gone already (uvicorn's ClientDisconnected)
            await self._send({"type": "websocket.close", "code": code, "reason": reason})

    async def send(self, data: str | bytes) -> None:
        if self.closed:
            raise ConnectionError("the socket is closed")
        if isinstance(data, bytes):
            await self._send({"type": "websocket.send", "bytes": data})
        else:
            await self._send({"type": "websocket.send", "text": data})


class Session:
    __slots__ = (
        "address",
        "backlog",
        "bare_since",
        "binary",
        "dropped",
        "gateway",
        "idle_timer",
        "refused",
        "refused_since",
        "st",
        "stamp",
        "subs",
        "tasks",
        "tokens",
        "wake",
        "writer",
        "ws",
    )

    def __init__(self, ws: Socket, st: Any, address: str = "") -> None:
        self.ws = ws
        self.st = st
        self.address = address  # the client's address key (its open sockets are counted under it)
        self.gateway = st.gateway
        self.binary = False
        self.subs: dict[str, Watch] = {}
        self.tasks: set[asyncio.Task[Any]] | None = None  # commands and closes under way
        self.backlog: collections.deque[str | bytes | None] | None = None  # the outbox, while not empty
        self.writer: asyncio.Task[None] | None = None  # writing the backlog, while there is one (or lingering)
        self.wake: asyncio.Future[None] | None = None  # the lingering writer waits on it for more
        self.dropped = False  # closed for not reading, or the peer is gone: nothing more is queued
        self.tokens = float(self._burst())  # the socket's message rate: a token bucket
        self.stamp = time.monotonic()
        self.refused = 0  # messages refused since refused_since (a window of REFUSAL_WINDOW_S)
        self.refused_since = 0.0
        self.bare_since: float | None = None  # since when the socket holds no subscription (set once accepted)
        self.idle_timer: asyncio.TimerHandle | None = None

    def _burst(self) -> int:
        return int(self.st.settings.gateway_socket_rps * 4)

    async def run(self) -> None:
        try:
            await self.ws.accept()
        except OSError:  # the peer is gone already
            return
        metrics.GATEWAY_SOCKETS.inc()
        self.st.sessions.add(self)
        self._bare(True)
        try:
            await self._read()
        finally:
            self.st.sessions.discard(self)
            await self._close()
            metrics.GATEWAY_SOCKETS.dec()

    def going_away(self) -> None:
        """The gateway is shutting down: stop the subscriptions, send what is queued, then close with 1001."""
        for match_id in list(self.subs):
            self._unsubscribe(match_id)
        if self.backlog is not None and len(self.backlog) >= OUTBOX:  # a client that does not read gets no more
            self.backlog.clear()
            self._spawn(self.ws.close(code=GOING_AWAY, reason=SHUTTING_DOWN))
        else:
            self.push(None)  # the writer's last message: close

    def _watch_idle(self) -> None:
        """Close the socket once it has held no subscription for ``AIRSHIP_GATEWAY_WS_IDLE_S``; else look again
        when that could first be true. No timer while the socket holds a subscription (:meth:`_bare` arms it)."""
        self.idle_timer = None
        if self.bare_since is None:
            return
        idle_s = self.st.settings.gateway_ws_idle_s
        wait_s = self.bare_since + idle_s - time.monotonic()
        if wait_s <= 0:
            metrics.GATEWAY_CONNECTIONS_TIMED_OUT.labels("websocket").inc()
            self._spawn(self.ws.close(code=1000, reason=f"no subscription for {idle_s:g} s"))
            return
        self.idle_timer = asyncio.get_running_loop().call_later(wait_s, self._watch_idle)

    def _bare(self, bare: bool) -> None:
        """The socket holds no subscription now (the idle clock starts), or holds one (it stops)."""
        if not bare:
            self.bare_since = None
            if self.idle_timer is not None:
                self.idle_timer.cancel()
                self.idle_timer = None
        elif self.bare_since is None:
            self.bare_since = time.monotonic()
            if self.idle_timer is None:
                self._watch_idle()

    def _rate_wait(self, cost: int = 1) -> float:
        """0 when one more message of ``cost`` units fits the socket's rate (``AIRSHIP_GATEWAY_SOCKET_RPS``,
        bursts of 4 s; spent then), else the seconds until it would."""
        rps = float(self.st.settings.gateway_socket_rps)
        now = time.monotonic()
        self.tokens = min(float(self._burst()), self.tokens + (now - self.stamp) * rps)
        self.stamp = now
        if self.tokens >= cost:
            self.tokens -= cost
            return 0.0
        return (cost - self.tokens) / rps

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
        wait = self._rate_wait(cost)
        if wait > 0:
            await tarpit(wait)
            raise Refused(429, "rate_limited", "too many messages on this socket; slow down")
        if not await self.st.limits.allowed(self.st.limits.address_rate, self.address, cost):
            raise Refused(429, "rate_limited", "too many requests from this address; slow down")

    # -- in ----------------------------------------------------------------------------------------
    async def _read(self) -> None:
        # one message at a time in _receive, whose locals go with it: an idle socket keeps none of its last message
        while await self._receive():
            pass

    async def _receive(self) -> bool:
        """Read and answer one message; False once the socket is closed."""
        message = await self.ws.receive()
        if message["type"] == "websocket.disconnect":
            return False
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
                return False
        return True

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
        watch = Watch(self, msg, seat, meta.game)
        self.subs[msg.match_id] = watch
        self._bare(False)
        hub = await self.gateway.hubs.get(msg.match_id)
        if self.subs.get(msg.match_id) is not watch:  # the socket went away meanwhile
            return
        # registered before the version is read: whatever is announced after it reaches the watch
        watch.feed = Feed.join(hub, watch.key, self.gateway, watch)
        try:
            version = await self.gateway.store.version(msg.match_id)
        except Exception as e:
            log.warning("subscription failed", match_id=msg.match_id, error=repr(e))
            watch.fail()
            return
        if watch.feed is None:  # unsubscribed (the gateway shutting down) meanwhile
            return
        self.send(Subscribed(cid=msg.cid, match_id=msg.match_id, seat=seat.seat if seat else None, version=version))
        watch.start()

    def _unsubscribe(self, match_id: str) -> None:
        watch = self.subs.pop(match_id, None)
        if watch is None:
            return
        if not self.subs:
            self._bare(True)
        watch.close()
        if watch.seat is not None:
            self.st.limits.release(self.st.limits.token_sockets, watch.seat.token)

    async def _command(self, msg: WsCommand) -> None:
        watch = self.subs.get(msg.match_id)
        if watch is None or watch.seat is None:
            self.send(ErrorMessage(cid=msg.cid, code="unauthorized",
                                   message="subscribe to the match with a seat token before sending commands"))
            return
        seat = watch.seat
        try:
            await self.st.limits.token(seat.token)
            command = SendCommand.model_construct(idempotency_key=msg.idempotency_key, type=msg.type,
                                                  body=msg.body, expected_version=msg.expected_version)
            watch.expect(f"{seat.seat}.{msg.idempotency_key}")
            result = await self.gateway.send(seat, command, 30.0)
        except Refused as e:
            self.send(ErrorMessage(cid=msg.cid, code=e.code, message=e.detail))
            return
        except Exception as e:  # Redis unavailable or full: the client may send the same key again
            log.warning("websocket command failed", error=repr(e))
            refusal = store_refusal(e)
            self.send(ErrorMessage(cid=msg.cid, code=refusal.code, message=refusal.detail))
            return
        if result is None:
            location = f"/matches/{msg.match_id}/commands/{msg.idempotency_key}"
            self.send(ResultMessage(cid=msg.cid, pending=Pending(idempotency_key=msg.idempotency_key,
                                                                 location=location)))
        else:
            self.send(ResultMessage.model_construct(cid=msg.cid, result=result, pending=None))

    async def events(self, match_id: str, game: str, seat: int | None, after: int, upto: int,
                     texts: bool = False) -> int:
        """Send the events after ``after`` up to ``upto`` (as the seat sees them), with the game's sentence for
        each when ``texts``; the last version sent."""
        for event in await self.gateway.events_for(match_id, game, seat, after):
            if event.version > upto:
                break
            text = event_text(game, event) if texts else None
            self.send(EventMessage(match_id=match_id, event=event) if text is None
                      else TextedEventMessage(match_id=match_id, event=event, text=text))
            after = event.version
        return after

    # -- out ---------------------------------------------------------------------------------------
    def send(self, message: BaseModel) -> None:
        try:
            data = encode(message, self.binary)
        except Exception as e:  # a message that cannot be encoded is a bug: say so, skip it, go on
            log.error("websocket message not encodable", kind=getattr(message, "kind", "?"), error=repr(e))
            return
        self.push(data)

    def push(self, data: str | bytes | None) -> None:
        """Queue an encoded message (None: close with 1001 after the others) and see that it is written."""
        if self.dropped:
            return
        backlog = self.backlog
        if backlog is None:
            backlog = self.backlog = collections.deque()
        elif len(backlog) >= OUTBOX:  # a client that does not read: drop it rather than hold memory
            self.dropped = True
            backlog.clear()
            self._spawn(self.ws.close(code=1008, reason="not reading"))
            return
        backlog.append(data)
        if self.writer is None:
            self.writer = asyncio.create_task(self._write())
        elif self.wake is not None:
            _wake(self.wake)

    async def _write(self) -> None:
        """Write the backlog in order; then wait up to :data:`LINGER_S` for more (a busy socket keeps its writer:
        no task per message), and end (and drop the empty outbox): an idle socket holds no writer."""
        loop = asyncio.get_running_loop()
        try:
            while self.backlog:
                while self.backlog:
                    data = self.backlog.popleft()
                    if data is None:  # going away
                        self.dropped = True
                        self.backlog.clear()
                        await self.ws.close(code=GOING_AWAY, reason=SHUTTING_DOWN)
                        return
                    try:
                        await self.ws.send(data)
                    except Exception:  # the peer is gone: the read loop sees the disconnect and closes the session
                        self.dropped = True
                        self.backlog.clear()
                        return
                waker = self.wake = loop.create_future()
                timer = loop.call_later(LINGER_S, _wake, waker)
                try:
                    await waker
                finally:
                    timer.cancel()
                    self.wake = None
        finally:
            if self.writer is asyncio.current_task():
                self.writer = None
                if not self.backlog:
                    self.backlog = None

    def _spawn(self, coro: Any) -> None:
        task = asyncio.create_task(coro)
        if self.tasks is None:
            self.tasks = set()
        self.tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        if self.tasks is not None:
            self.tasks.discard(task)
            if not self.tasks:
                self.tasks = None

    async def _close(self) -> None:
        for match_id in list(self.subs):
            self._unsubscribe(match_id)
        self._bare(False)  # no idle clock for a closed socket
        for task in list(self.tasks or ()):
            task.cancel()
        writer, self.writer = self.writer, None
        if writer is not None:
            writer.cancel()
            with contextlib.suppress(BaseException):
                await writer


async def websocket(scope: Any, receive: Any, send: Any) -> None:
    """``/ws``, a bare ASGI endpoint (GatewayApp serves it past the routing and the middleware)."""
    ws = Socket(receive, send)
    st = scope["app"].state.airship
    client = scope.get("client")
    address = st.address(Headers(scope=scope), Address(*client) if client else None)
    scope["headers"] = []  # read: the scope lives as long as the socket, its headers need not
    if (await receive())["type"] != "websocket.connect":  # the ASGI handshake's first message
        return
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


def add_websocket(app: Any) -> None:
    app.sockets["/ws"] = websocket


async def _refuse_at_capacity(ws: Socket, st: Any) -> None:
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


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
