"""The IRC bridge bot: connects to a server, joins its channels, and plays matches there (see :mod:`.tables`).

Three threads: one reads IRC and answers what people write; one posts what happens in the matches (it wakes
at once after a command went through the bridge, and every ``poll_s`` for anything else); one sends, taking
lines from the :class:`~.outbox.Outbox` (a queue per table, served in turn, under the flood limit). When the
server goes away the bridge connects again with growing pauses (``reconnect_min_s`` doubling up to
``reconnect_max_s``), joins its channels and the channels of its tables again, and looks who is there
(``WHO``). The bridge plays through a gateway client (``airship irc --url``), or through the embedded client
of an in-process service with its worker and projector on threads (``airship irc`` without ``--url``).
"""

from __future__ import annotations

import contextlib
import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from services.chat.irc.acks import Acks
from services.chat.irc.connection import IrcConnection, IrcError
from services.chat.irc.outbox import MAX_QUEUED, Line, Outbox
from services.chat.irc.protocol import CTCP, Message, is_channel
from services.chat.irc.seats import Sender, same_nick
from services.chat.irc.store import TableStore
from services.chat.irc.tables import BOARD_EVERY_S, IDLE_REMIND_S, Tables
from services.client.protocol import GameClient
from services.logs import get_logger
from services.pipeline.backoff import Backoff

log = get_logger("irc")
WHO_REPLY = "352"
STABLE_S = 30.0  # a connection that lasted this long resets the pauses between attempts


@dataclass(frozen=True)
class BridgeSettings:
    host: str = "127.0.0.1"
    port: int = 6667
    nick: str = "airship"
    channels: tuple[str, ...] = ("#airship",)
    password: str | None = None
    poll_s: float = 0.5
    timeout_s: float = 30.0
    line_interval_s: float = 0.0
    burst: int = 5
    bytes_per_s: float = 0.0  # the most bytes a second on average (0: no limit)
    ack_window: int = 12  # lines sent and not yet acknowledged by the server (PING/PONG) at most
    max_queued: int = MAX_QUEUED  # lines queued per table; beyond, its oldest chatter is dropped (never the match's)
    store_path: str | None = None  # where the tables are kept across restarts (None: in memory only)
    reconnect_min_s: float = 1.0
    reconnect_max_s: float = 60.0
    board_every_s: float = BOARD_EVERY_S
    idle_remind_s: float = IDLE_REMIND_S  # remind a player to move who lets the table wait this long (0: never)
    colour: bool = False  # the players' nicks in mIRC colours in the channel's event lines

    @classmethod
    def from_address(cls, address: str, **changes: object) -> BridgeSettings:
        """``HOST:PORT`` (or ``HOST``, port 6667)."""
        host, sep, port = address.rpartition(":")
        if not sep:
            host, port = address, "6667"
        if not port.isdigit():
            raise ValueError(f"'{address}' should look like HOST:PORT")
        return cls(host=host or "127.0.0.1", port=int(port), **changes)  # type: ignore[arg-type]


class IrcBridge:
    def __init__(self, client: GameClient, settings: BridgeSettings,
                 connect: Callable[[BridgeSettings], IrcConnection] | None = None) -> None:
        self.settings = settings
        store = TableStore(settings.store_path) if settings.store_path else None
        self.tables = Tables(client, settings.timeout_s, store, board_every_s=settings.board_every_s,
                             idle_remind_s=settings.idle_remind_s, colour=settings.colour)
        self.outbox = Outbox(settings.line_interval_s, settings.burst, settings.max_queued,
                             bytes_per_s=settings.bytes_per_s)
        self.acks = Acks(window=settings.ack_window)
        self._connect = connect or _open
        self.connection: IrcConnection | None = None
        self.ready = threading.Event()  # registered and the channels joined (cleared while disconnected)
        self.connections = 0  # how many times the bridge connected
        self._connected = threading.Event()
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._joined: set[str] = set()
        self._send_lock = threading.Lock()  # a line sent and noted, or the connection's lines taken back
        self._accounts: dict[str, str] = {}  # nick (lower case) -> services account, where the server says

    def run(self) -> None:
        """Connect and serve until :meth:`stop`, connecting again whenever the server goes away."""
        threads = [threading.Thread(target=self._post_updates, name="irc-updates", daemon=True),
                   threading.Thread(target=self._send_lines, name="irc-sender", daemon=True)]
        for thread in threads:
            thread.start()
        backoff = Backoff(self.settings.reconnect_min_s, self.settings.reconnect_max_s)
        try:
            while not self._stop.is_set():
                connection = self._connect(self.settings)
                try:
                    connection.connect()
                except IrcError as e:
                    delay = backoff.next_s() * random.uniform(0.8, 1.2)
                    log.warning("irc connect failed; trying again", error=str(e), retry_in_s=round(delay, 2))
                    self._stop.wait(delay)
                    continue
                started = time.monotonic()
                self._serve(connection)
                if time.monotonic() - started >= STABLE_S:  # a connection that lasted: the next try is at once
                    backoff.reset()
                elif not self._stop.is_set():
                    self._stop.wait(backoff.next_s())
        finally:
            self._stop.set()
            self._wake.set()
            for thread in threads:
                thread.join(timeout=self.settings.poll_s + 5)

    def _serve(self, connection: IrcConnection) -> None:
        self.connection = connection
        self.connections += 1
        self._joined.clear()
        self._accounts.clear()
        self.tables.on_reconnect(first=self.connections == 1)
        self.tables.me = connection.nick
        for channel in self._channels():
            connection.join(channel)
        self._connected.set()
        log.info("irc connected", server=f"{self.settings.host}:{self.settings.port}", nick=connection.nick)
        try:
            for message in connection.messages(until=self._stop):
                self._on_message(message)
        except IrcError as e:
            if not self._stop.is_set():
                log.warning("irc connection lost; connecting again", error=str(e))
        finally:
            self._connected.clear()
            self.ready.clear()
            self.connection = None
            connection.close()
            with self._send_lock:  # the sender is between lines: what the server never acknowledged goes again
                lost = self.acks.lost()
            for line in reversed(lost):
                self.outbox.unget(line)
            if lost:
                log.info("irc lines sent again", lines=len(lost))

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()

    def _channels(self) -> list[str]:
        """The configured channels and those of the tables (a restored table may be elsewhere)."""
        seen: dict[str, str] = {}
        for channel in [*self.settings.channels, *self.tables.channels()]:
            seen.setdefault(channel.lower(), channel)
        return list(seen.values())

    # -- in --------------------------------------------------------------------------------------
    def _sender(self, message: Message) -> Sender:
        nick = message.nick or ""
        account = message.tag("account") or self._accounts.get(nick.lower())
        return Sender(nick, message.userhost, account)

    def _on_message(self, message: Message) -> None:
        connection = self.connection
        me = connection.nick if connection else self.settings.nick
        command = message.command
        if command == WHO_REPLY and len(message.params) >= 6:  # me channel user host server nick ...
            _, channel, user, host, _, nick = message.params[:6]
            self.tables.on_seen(channel, Sender(nick, f"{user}@{host}", self._accounts.get(nick.lower())))
            return
        if command == "PONG":  # the server read everything sent before our PING
            self.acks.pong(message.params[-1] if message.params else "")
            return
        if not message.nick:
            return
        sender = self._sender(message)
        mine = same_nick(message.nick, me)
        if command == "JOIN":
            channel = message.param(0)
            if len(message.params) >= 3 and message.param(1) != "*":  # extended-join: the account
                self._accounts[message.nick.lower()] = message.param(1)
                sender = self._sender(message)
            if mine:
                self._joined.add(channel.lower())
                if connection is not None:
                    connection.send("WHO", channel)
                if self._joined >= {c.lower() for c in self._channels()}:
                    self.ready.set()
                return
            self._say(self.tables.on_join(channel, sender))
        elif command == "ACCOUNT":  # account-notify
            account = message.param(0)
            if account in ("*", ""):
                self._accounts.pop(message.nick.lower(), None)
            else:
                self._accounts[message.nick.lower()] = account
        elif command == "PART" and not mine:
            self._say(self.tables.on_part(message.param(0), sender))
        elif command == "KICK":
            kicked = message.param(1)
            if not same_nick(kicked, me):
                self._say(self.tables.on_part(message.param(0), Sender(kicked, None,
                                                                       self._accounts.get(kicked.lower()))))
            elif connection is not None:
                connection.join(message.param(0))
        elif command == "QUIT" and not mine:
            self._say(self.tables.on_quit(sender, message.param(0)))
            self._accounts.pop(message.nick.lower(), None)
        elif command == "NICK" and not mine:
            new = message.param(0)
            if message.nick.lower() in self._accounts:
                self._accounts[new.lower()] = self._accounts.pop(message.nick.lower())
            self._say(self.tables.on_nick(sender, new))
        elif command == "PRIVMSG" and len(message.params) >= 2 and not mine:
            target, text = message.params[0], message.params[1]
            if text.startswith(CTCP):
                return
            try:
                if is_channel(target):
                    replies = self.tables.on_channel(target, sender, text)
                else:
                    replies = self.tables.on_private(sender, text)
            except Exception:  # one bad line must not take the bridge down
                log.exception("irc message failed", nick=message.nick, target=target)
                replies = [Line(message.nick, "Sorry, that went wrong on my side; the operators have the details.")]
            self._say(replies)
            self._wake.set()

    # -- out -------------------------------------------------------------------------------------
    def _post_updates(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.settings.poll_s)
            self._wake.clear()
            if not self._connected.is_set():  # nobody to tell: the news waits (the sessions keep their place)
                self._connected.wait(self.settings.poll_s)
                continue
            try:
                self._say(self.tables.poll())
            except Exception:
                log.exception("irc update failed")

    def _send_lines(self) -> None:
        """Send the outbox's lines; each counts as told once the server acknowledged it (:mod:`.acks`): no more
        than the ack window unacknowledged, a ping after every few lines and whenever the outbox runs dry."""
        while not self._stop.is_set():
            if not self._connected.wait(self.settings.poll_s):
                continue
            if not self.acks.wait_room(self._stop, self.settings.poll_s):  # the server is behind: wait for its PONG
                connection = self.connection
                if self.acks.stalled() and connection is not None:  # no PONG for a minute: the connection is dead
                    log.warning("irc server acknowledges nothing; connecting again", unacknowledged=self.acks.waiting)
                    connection.close("no answer")
                continue
            if not self.outbox.queued():
                self._ping(self.acks.idle())
            line = self.outbox.take(self._stop)
            if line is None:
                return
            with self._send_lock:
                connection = self.connection
                try:
                    if connection is None or not self._connected.is_set():
                        raise IrcError("not connected")
                    connection.send("PRIVMSG", line.target, line.text)
                    token = self.acks.sent(line)
                except IrcError:
                    self.outbox.unget(line)  # sent once connected again
                    if connection is None or connection.closed.is_set():
                        self._connected.clear()
                    token = None
            if token is None and not self.outbox.queued():
                token = self.acks.idle()
            self._ping(token)
            if token is None and connection is None:
                self._stop.wait(0.05)

    def _ping(self, token: str | None) -> None:
        connection = self.connection
        if token is None or connection is None:
            return
        with contextlib.suppress(IrcError):  # the connection is going: its lines are sent again on the next
            connection.send("PING", token)

    def _say(self, replies: Sequence[Line]) -> None:
        if replies:
            self.outbox.put(replies)


def _open(settings: BridgeSettings) -> IrcConnection:
    return IrcConnection(settings.host, settings.port, settings.nick, password=settings.password,
                         timeout_s=settings.timeout_s)
