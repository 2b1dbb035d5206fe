"""The IRC bridge bot: connects to a server, joins its channels, and plays matches there (see :mod:`.tables`).

One thread reads IRC and answers what people write; another posts what happens in the matches (it wakes
at once after a command went through the bridge, and every ``poll_s`` for anything else). The bridge plays
through a gateway client (``airship irc --url``), or through the embedded client of an in-process service
with its worker and projector on threads (``airship irc`` without ``--url``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from services.chat.irc.connection import IrcConnection, IrcError
from services.chat.irc.protocol import CTCP, Message, is_channel
from services.chat.irc.tables import Reply, Tables
from services.client.protocol import GameClient
from services.logs import get_logger

log = get_logger("irc")


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
        self.tables = Tables(client, settings.timeout_s)
        self._connect = connect or _open
        self.connection: IrcConnection | None = None
        self.ready = threading.Event()  # registered and the channels joined
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._joined: set[str] = set()

    def run(self) -> None:
        """Connect and serve until :meth:`stop` or the server goes away."""
        connection = self.connection = self._connect(self.settings)
        connection.connect()
        for channel in self.settings.channels:
            connection.join(channel)
        poster = threading.Thread(target=self._post_updates, name="irc-updates", daemon=True)
        poster.start()
        try:
            for message in connection.messages(until=self._stop):
                self._on_message(message)
        except IrcError as e:
            if not self._stop.is_set():
                log.warning("irc connection lost", error=str(e))
                raise
        finally:
            self._stop.set()
            self._wake.set()
            poster.join(timeout=self.settings.poll_s + 5)
            connection.close()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()

    # -- in --------------------------------------------------------------------------------------
    def _on_message(self, message: Message) -> None:
        me = self.connection.nick if self.connection else self.settings.nick
        if message.command == "JOIN" and message.nick == me:
            self._joined.add(message.param(0).lower())
            if self._joined >= {c.lower() for c in self.settings.channels}:
                self.ready.set()
        elif message.command == "NICK" and message.nick and message.nick != me:
            self._say(self.tables.on_nick(message.nick, message.param(0)))
        elif message.command == "PRIVMSG" and message.nick and len(message.params) >= 2:
            target, text = message.params[0], message.params[1]
            if text.startswith(CTCP) or message.nick == me:
                return
            try:
                if is_channel(target):
                    replies = self.tables.on_channel(target, message.nick, text)
                else:
                    replies = self.tables.on_private(message.nick, text)
            except Exception:  # one bad line must not take the bridge down
                log.exception("irc message failed", nick=message.nick, target=target)
                replies = [(message.nick, "Sorry, that went wrong on my side; the operators have the details.")]
            self._say(replies)
            self._wake.set()

    # -- out -------------------------------------------------------------------------------------
    def _post_updates(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.settings.poll_s)
            self._wake.clear()
            try:
                self._say(self.tables.poll())
            except IrcError:
                return
            except Exception:
                log.exception("irc update failed")

    def _say(self, replies: Sequence[Reply]) -> None:
        connection = self.connection
        if connection is None:
            return
        for target, text in replies:
            connection.privmsg(target, text)


def _open(settings: BridgeSettings) -> IrcConnection:
    return IrcConnection(settings.host, settings.port, settings.nick, password=settings.password,
                         timeout_s=settings.timeout_s, line_interval_s=settings.line_interval_s,
                         burst=settings.burst)
