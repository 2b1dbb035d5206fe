"""One IRC client connection over a plain socket: registration, PING/PONG, and sending with flood control.

Written on the socket module rather than a library: the bridge needs a dozen commands of a line protocol,
and this keeps the service free of a dependency tree for them.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator

from services.chat.irc.protocol import Message, ProtocolError, format_message, parse, split_text

WELCOME = "001"
NICK_ERRORS = {"431", "432", "433", "436"}  # no nick, erroneous, in use, collision
ENCODING = "utf-8"
WANTED_CAPS = ("account-tag", "extended-join", "account-notify")  # services accounts, where the server has them


class IrcError(ConnectionError):
    """The server refused us or went away."""


class IrcConnection:
    """A registered client. ``messages()`` yields what the server sends (PINGs are answered on the way);
    ``send`` and ``privmsg`` may be called from other threads.

    Flood control: at most ``burst`` lines at once, then one every ``line_interval_s`` (0: no limit, for a
    server of our own; public networks disconnect clients that send faster than about one line a second).
    """

    def __init__(self, host: str, port: int, nick: str, *, username: str = "airship",
                 realname: str = "airship game bridge", password: str | None = None, timeout_s: float = 30.0,
                 line_interval_s: float = 0.0, burst: int = 5, read_timeout_s: float = 0.5) -> None:
        self.host, self.port = host, port
        self.nick = nick
        self.username, self.realname, self.password = username, realname, password
        self.timeout_s = timeout_s
        self.read_timeout_s = read_timeout_s
        self.line_interval_s = line_interval_s
        self.burst = burst
        self._sock: socket.socket | None = None
        self._buffer = b""
        self._send_lock = threading.Lock()
        self._allowance = float(burst)
        self._last_send = time.monotonic()
        self.closed = threading.Event()
        self.caps: set[str] = set()  # the IRCv3 capabilities the server granted

    # -- connecting ------------------------------------------------------------------------------
    def connect(self) -> None:
        """Open the socket and register; returns once the server welcomed us (taking ``nick_`` if ``nick``
        is in use). Asks for the account capabilities (``account-tag``...) on the way; a server without
        capability negotiation ignores the request."""
        try:
            self._sock = socket.create_connection((self.host, self.port), timeout=self.timeout_s)
        except OSError as e:
            raise IrcError(f"cannot reach the IRC server {self.host}:{self.port}: {e}") from e
        self._sock.settimeout(self.read_timeout_s)
        self._buffer = b""
        self.caps = set()
        self.closed.clear()
        if self.password:
            self.send("PASS", self.password)
        self.send("CAP", "LS", "302")
        self.send("NICK", self.nick)
        self.send("USER", self.username, "0", "*", self.realname)
        deadline = time.monotonic() + self.timeout_s
        for message in self.messages(deadline):
            if message.command == "CAP":
                self._negotiate(message)
                continue
            if message.command == WELCOME:
                self.nick = message.param(0, self.nick)
                return
            if message.command in NICK_ERRORS:
                self.nick = (self.nick + "_")[:30]
                self.send("NICK", self.nick)
            elif message.command == "ERROR":
                raise IrcError(f"the IRC server refused us: {message.param(0)}")
        raise IrcError(f"no welcome from the IRC server {self.host}:{self.port} within {self.timeout_s:g}s")

    def _negotiate(self, message: Message) -> None:
        """``CAP * LS :a b=c``: ask for the wanted capabilities it offers; ``ACK``/``NAK``: note and end."""
        sub = message.param(1).upper()
        if sub == "LS" and message.param(2) != "*":  # the last (or only) line of the list
            offered = {c.split("=", 1)[0] for c in message.params[-1].split()}
            wanted = [c for c in WANTED_CAPS if c in offered]
            if wanted:
                self.send("CAP", "REQ", " ".join(wanted))
            else:
                self.send("CAP", "END")
        elif sub in ("ACK", "NAK"):
            if sub == "ACK":
                self.caps |= set(message.params[-1].split())
            self.send("CAP", "END")

    def join(self, channel: str) -> None:
        self.send("JOIN", channel)

    def close(self, reason: str = "bye") -> None:
        if self._sock is None:
            return
        with contextlib.suppress(OSError):
            self.send("QUIT", reason)
        self._sock.close()
        self._sock = None
        self.closed.set()

    # -- reading ---------------------------------------------------------------------------------
    def messages(self, deadline: float | None = None, until: threading.Event | None = None) -> Iterator[Message]:
        """Messages as they arrive until the connection ends, ``deadline`` (a monotonic time) passes or
        ``until`` is set (checked at least every ``read_timeout_s``)."""
        while self._sock is not None:
            if (deadline is not None and time.monotonic() > deadline) or (until is not None and until.is_set()):
                return
            line = self._read_line()
            if line is None:
                continue
            try:
                message = parse(line)
            except ProtocolError:
                continue
            if message.command == "PING":
                self.send("PONG", *message.params[:1])
                continue
            yield message

    def _read_line(self) -> str | None:
        """The next line, or None after a read time-out; raises :class:`IrcError` at the end of the stream."""
        sock = self._sock
        while b"\n" not in self._buffer:
            if sock is None:
                raise IrcError("not connected")
            try:
                data = sock.recv(4096)
            except TimeoutError:
                return None
            except OSError as e:
                self.closed.set()
                raise IrcError(f"the connection to {self.host}:{self.port} broke: {e}") from e
            if not data:
                self.closed.set()
                raise IrcError(f"the IRC server {self.host}:{self.port} closed the connection")
            self._buffer += data
        raw, _, self._buffer = self._buffer.partition(b"\n")
        return raw.rstrip(b"\r").decode(ENCODING, errors="replace")

    # -- writing ---------------------------------------------------------------------------------
    def send(self, command: str, *params: str) -> None:
        line = format_message(command, *params).encode(ENCODING)[:510] + b"\r\n"
        with self._send_lock:
            self._throttle()
            if self._sock is None:
                raise IrcError("not connected")
            try:
                self._sock.sendall(line)
            except OSError as e:
                self.closed.set()
                raise IrcError(f"cannot send to {self.host}:{self.port}: {e}") from e

    def privmsg(self, target: str, text: str) -> None:
        for piece in split_text(text):
            if piece:
                self.send("PRIVMSG", target, piece)

    def _throttle(self) -> None:
        if self.line_interval_s <= 0:
            return
        now = time.monotonic()
        self._allowance = min(float(self.burst), self._allowance + (now - self._last_send) / self.line_interval_s)
        self._last_send = now
        if self._allowance < 1:
            time.sleep((1 - self._allowance) * self.line_interval_s)
            self._allowance = 1.0
            self._last_send = time.monotonic()
        self._allowance -= 1
