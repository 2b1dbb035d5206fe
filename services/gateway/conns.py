"""Connections no client can hoard (docs/gateway.md, "Connections and timeouts").

The gateway's uvicorn runs the two protocol classes below in place of its own (:class:`GatewayConfig`):

- every connection is counted at ``connection_made``, against its client address (the peer address; an IPv6
  address per /64) and against the process. Past either cap it gets a fixed 503 and is closed at once: no
  parsing, no task, no timer (``airship_gateway_connections_refused_total{reason}``);
- the count is released exactly once, in ``connection_lost`` of whichever protocol holds the transport then:
  the HTTP protocol, or the WebSocket protocol uvicorn hands the transport to on an upgrade. Both release by
  the transport, through one dictionary, so a second release finds nothing;
- a request head (request line and headers) must be complete within the header timeout, counted from the
  connection's opening or from the first byte of a later request on it (slowloris: a client sending half a
  request line, or nothing, would otherwise hold its connection for ever). Between requests uvicorn's
  keep-alive timeout closes an idle connection. A request in progress (a long poll) is never cut by either.

The caps default to shares of RLIMIT_NOFILE (:func:`connection_limits`), which :func:`raise_fd_limit` first
raises from the soft to the hard limit. They hold per process: each gateway replica counts its own file
descriptors. Behind a proxy the peer is the proxy, so the per-address cap applies to the proxy's connections.
The HTTP protocol is httptools' (uvicorn[standard] installs it); the WebSocket one websockets' sans-I/O protocol.
"""

from __future__ import annotations

import asyncio
import collections
import ipaddress
import resource
import time
from dataclasses import dataclass
from typing import Any, cast

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from services import metrics
from services.logs import get_logger
from services.settings import Settings

log = get_logger("gateway")
NOFILE_CEILING = 1 << 20  # the soft limit is raised to the hard one, but not past this
LOG_EVERY_S = 10.0  # refusals are logged at most this often (a summary), never one line per connection


def _refusal(text: str) -> bytes:
    body = text.encode()
    return (b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\n"
            b"Content-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))


REFUSALS = {"address": _refusal("too many open connections from this address"),
            "capacity": _refusal("the gateway holds all the connections it can; try again later")}


def raise_fd_limit(ceiling: int = NOFILE_CEILING) -> int:
    """Raise the soft RLIMIT_NOFILE to the hard limit (at most ``ceiling``), as Go and nginx do; return the
    soft limit then in force (``ceiling`` when unlimited)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = ceiling if hard == resource.RLIM_INFINITY else min(hard, ceiling)
    if soft == resource.RLIM_INFINITY:
        return ceiling
    if soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError) as e:  # e.g. above the kernel's nr_open
            log.warning("could not raise the file-descriptor limit", soft=soft, hard=hard, error=repr(e))
    return soft


@dataclass(frozen=True, slots=True)
class ConnectionLimits:
    """The gateway's connection caps and its header timeout."""

    total: int  # open connections per process
    per_address: int  # open connections per client address (IPv6: per /64)
    header_timeout_s: float  # a request head must be complete within this


def connection_limits(settings: Settings, nofile: int) -> ConnectionLimits:
    """The caps of ``settings``, where 0 means a share of ``nofile`` (the file-descriptor limit): the process
    keeps a tenth (at least 64) for Redis, logs and the listening socket; an address gets max(64, nofile / 16)."""
    total = settings.gateway_max_connections or max(16, nofile - max(64, nofile // 10))
    per_address = settings.gateway_addr_connections or max(64, nofile // 16)
    return ConnectionLimits(total, min(per_address, total), settings.gateway_header_timeout_s)


def address_key(peername: Any) -> str:
    """What one client address is: the IPv4 address, an IPv6 address's /64 (an IPv4-mapped one as IPv4);
    a peer without an address (a Unix socket) is ``local``."""
    host = peername[0] if isinstance(peername, tuple) and peername else peername
    if not isinstance(host, str) or not host:
        return "local"
    if ":" not in host:
        return host
    try:
        ip = ipaddress.IPv6Address(host.split("%", 1)[0])
    except ValueError:
        return host[:64]
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return f"{ipaddress.IPv6Address(int(ip) >> 64 << 64)}/64"


class Throttled:
    """Counts what happens, by kind, and says when to log it: at most once every ``every_s``, a summary (never one
    line per connection, whatever a client sends)."""

    def __init__(self, every_s: float = LOG_EVERY_S) -> None:
        self.every_s = every_s
        self._counts: dict[str, int] = {}
        self._logged = -every_s

    def count(self, kind: str) -> dict[str, int] | None:
        """Count one ``kind``; when a log line is due, the counts since the last one (then started afresh)."""
        self._counts[kind] = self._counts.get(kind, 0) + 1
        now = time.monotonic()
        if now - self._logged < self.every_s:
            return None
        counts, self._counts, self._logged = self._counts, {}, now
        return counts


class ConnectionGuard:
    """The open connections of the process, per client address; :meth:`admit` at ``connection_made``,
    :meth:`release` (idempotent) at ``connection_lost``."""

    def __init__(self, limits: ConnectionLimits) -> None:
        self.limits = limits
        self.per_address: dict[str, int] = {}
        self._held: dict[object, str] = {}  # transport -> its address
        self._refusals = Throttled()

    def __len__(self) -> int:
        return len(self._held)

    def admit(self, transport: asyncio.BaseTransport) -> str | None:
        """Count ``transport`` in; None when admitted, else why not (``address`` or ``capacity``)."""
        key = address_key(transport.get_extra_info("peername"))
        held = self.per_address.get(key, 0)
        reason = ("capacity" if len(self._held) >= self.limits.total
                  else "address" if held >= self.limits.per_address else None)
        if reason is not None:
            self._refuse(reason, key)
            return reason
        self.per_address[key] = held + 1
        self._held[transport] = key
        metrics.GATEWAY_CONNECTIONS.set(len(self._held))
        return None

    def release(self, transport: asyncio.BaseTransport) -> None:
        key = self._held.pop(transport, None)
        if key is None:  # refused, or released already
            return
        left = self.per_address[key] - 1
        if left:
            self.per_address[key] = left
        else:
            del self.per_address[key]
        metrics.GATEWAY_CONNECTIONS.set(len(self._held))

    def _refuse(self, reason: str, key: str) -> None:
        metrics.GATEWAY_CONNECTIONS_REFUSED.labels(reason).inc()
        refused = self._refusals.count(reason)
        if refused is not None:
            log.warning("connections refused", refused=refused, last_address=key, open=len(self._held),
                        max_connections=self.limits.total, per_address=self.limits.per_address)


class GatewayConfig(uvicorn.Config):
    """uvicorn's configuration with the gateway's protocol classes and the guard they share."""

    def __init__(self, app: Any, guard: ConnectionGuard, **kwargs: Any) -> None:
        super().__init__(app, http=GuardedHttpProtocol, ws=GuardedWebSocketProtocol, **kwargs)
        self.guard = guard


def _guard(config: uvicorn.Config) -> ConnectionGuard:
    return cast(GatewayConfig, config).guard


class GuardedHttpProtocol(HttpToolsProtocol):
    """uvicorn's HTTP protocol, counted by the guard and with a header timeout."""

    refused = False
    upgraded = False
    head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        reason = _guard(self.config).admit(transport)
        if reason is not None:
            self.refused = True
            transport.write(REFUSALS[reason])
            transport.close()
            return
        super().connection_made(transport)
        self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.refused:
            return
        self._cancel_head_timer()
        _guard(self.config).release(self.transport)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.refused or self.upgraded:
            return
        if self.head_timer is None and self._between_requests():  # the first bytes of a request head
            self._arm_head_timer()
        super().data_received(data)
        if self.head_timer is not None and not self._between_requests():  # the head is complete
            self._cancel_head_timer()

    def handle_websocket_upgrade(self) -> None:
        """The transport goes to the WebSocket protocol, which releases the count when it closes."""
        self.upgraded = True
        self._cancel_head_timer()
        super().handle_websocket_upgrade()

    def timeout_keep_alive_handler(self) -> None:
        if not self.transport.is_closing():
            metrics.GATEWAY_CONNECTIONS_TIMED_OUT.labels("idle").inc()
        super().timeout_keep_alive_handler()

    def _between_requests(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def _arm_head_timer(self) -> None:
        self.head_timer = self.loop.call_later(_guard(self.config).limits.header_timeout_s, self._head_timed_out)

    def _cancel_head_timer(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None

    def _head_timed_out(self) -> None:
        self.head_timer = None
        if self.upgraded or self.transport.is_closing() or not self._between_requests():
            return
        metrics.GATEWAY_CONNECTIONS_TIMED_OUT.labels("header").inc()
        self.transport.close()


class Inbox:
    """What uvicorn's WebSocket protocol uses of its ``asyncio.Queue`` (``put_nowait``, ``get``, ``empty``),
    without the four deques (3 KB) an ``asyncio.Queue`` allocates at once: a deque while messages wait, a future
    while the application waits for one. Unbounded, as uvicorn's queue (it pauses reading instead)."""

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: collections.deque[Any] | None = None
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: Any) -> None:
        if self._items is None:
            self._items = collections.deque()
        self._items.append(item)
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    async def get(self) -> Any:
        while not self._items:
            await _park(self)
        item = self._items.popleft()
        if not self._items:
            self._items = None
        return item

    def empty(self) -> bool:
        return not self._items

    def qsize(self) -> int:
        return len(self._items or ())


class Flag:
    """What uvicorn's WebSocket protocol uses of its ``asyncio.Event`` (``writable``), without its deque: a future
    only while somebody waits."""

    __slots__ = ("_set", "_waiter")

    def __init__(self) -> None:
        self._set = False
        self._waiter: asyncio.Future[None] | None = None

    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        self._set = True
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def clear(self) -> None:
        self._set = False

    async def wait(self) -> bool:
        while not self._set:
            await _park(self)
        return True


async def _park(holder: Inbox | Flag) -> None:
    """Wait until ``holder`` wakes its waiter (a future made only while somebody waits)."""
    if holder._waiter is None:
        holder._waiter = asyncio.get_running_loop().create_future()
    try:
        await holder._waiter
    finally:
        holder._waiter = None


class GuardedWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, releasing the count of the connection it took over when it closes, and
    holding less for each open socket (docs/performance.md, "Live delivery at scale"): a slim :class:`Inbox` and
    :class:`Flag` in place of its ``asyncio.Queue`` and ``asyncio.Event``, and neither the handshake's request nor
    its response (nor the request's headers) once the socket is accepted."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.queue = cast(Any, Inbox())
        self.writable = cast(Any, Flag())
        self.writable.set()

    def connection_lost(self, exc: Exception | None) -> None:
        _guard(self.config).release(self.transport)
        super().connection_lost(exc)

    async def send(self, message: Any) -> None:
        await super().send(message)
        if message["type"] == "websocket.accept":  # handshake done: uvicorn reads neither again
            if self.request is not None:  # websockets' parser keeps a reference to it as long as the socket lives
                self.request.headers.clear()
            self.request = self.response = cast(Any, None)
