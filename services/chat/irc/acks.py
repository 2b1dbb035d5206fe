"""Lines count as told only once the server took them (#33): the sender numbers what it sends, asks the server
for a ``PING :airship-<n>`` after every few lines (and whenever it runs out of lines), and a line is acknowledged
when the server's ``PONG`` for a ping sent after it comes back: the server reads in order, so it has read the line.
While the connection holds, what the server has not acknowledged is the backlog it has yet to read: the sender
stops at :data:`WINDOW` lines (or :data:`WINDOW_BYTES`) unacknowledged, so it slows down before the server stops
reading (and before a flood limit disconnects it). When the connection is lost, the unacknowledged lines are
handed back to be sent again on the next connection: a line sent into a dying connection is told again, never
lost (at worst told twice)."""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import replace

from services.chat.irc.outbox import Line

TOKEN = "airship-"
EVERY = 5  # lines between pings
WINDOW = 12  # unacknowledged lines at most; the sender waits for a PONG beyond
WINDOW_BYTES = 4096  # nor more unacknowledged bytes (servers read a few kB ahead of a client at most)
STALL_S = 60.0  # a line unacknowledged this long: the connection is taken for dead (and its lines sent again)


class Acks:
    def __init__(self, every: int = EVERY, window: int = WINDOW, window_bytes: int = WINDOW_BYTES) -> None:
        self.every, self.window, self.window_bytes = every, window, window_bytes
        self._sent: deque[tuple[int, Line, float]] = deque()  # (number, line, sent at), oldest first: unacknowledged
        self._bytes = 0
        self._number = 0
        self._pinged = 0  # the number of the last line a ping was sent after
        self._room = threading.Condition()
        self.resent = 0

    def sent(self, line: Line) -> str | None:
        """Note a line the connection took; the token of a ping to send now (every :attr:`every` lines), or None."""
        with self._room:
            self._number += 1
            self._sent.append((self._number, line, time.monotonic()))
            self._bytes += len(line.text.encode())
            return self._ping_due(force=False)

    def idle(self) -> str | None:
        """Nothing more to send now: a ping for the lines not yet covered by one, or None."""
        with self._room:
            return self._ping_due(force=True)

    def _ping_due(self, force: bool) -> str | None:
        if self._number > self._pinged and (force or self._number - self._pinged >= self.every):
            self._pinged = self._number
            return f"{TOKEN}{self._number}"
        return None

    def pong(self, token: str) -> bool:
        """The server's PONG: every line up to the ping's number is acknowledged. False for a token not ours."""
        if not token.startswith(TOKEN) or not token[len(TOKEN):].isdigit():
            return False
        upto = int(token[len(TOKEN):])
        with self._room:
            while self._sent and self._sent[0][0] <= upto:
                _, line, _ = self._sent.popleft()
                self._bytes -= len(line.text.encode())
            self._room.notify_all()
        return True

    @property
    def waiting(self) -> int:
        with self._room:
            return len(self._sent)

    def stalled(self, after_s: float = STALL_S) -> bool:
        """Whether the oldest unacknowledged line has waited ``after_s``: a server that stopped answering."""
        with self._room:
            return bool(self._sent) and time.monotonic() - self._sent[0][2] >= after_s

    def wait_room(self, stop: threading.Event, timeout_s: float) -> bool:
        """Wait until fewer than :attr:`window` lines (and :attr:`window_bytes`) are unacknowledged; False if
        ``timeout_s`` passed or ``stop`` was set first."""
        deadline = time.monotonic() + timeout_s
        with self._room:
            while len(self._sent) >= self.window or self._bytes >= self.window_bytes:
                left = deadline - time.monotonic()
                if left <= 0 or stop.is_set():
                    return False
                self._room.wait(min(left, 0.1))
            return True

    def lost(self) -> list[Line]:
        """The connection is gone: the lines it never acknowledged, oldest first, to be sent again (the first to
        each channel starts with ``Meanwhile:``, so the channel knows it is hearing it late)."""
        with self._room:
            lines = [line for _, line, _ in self._sent]
            self._sent.clear()
            self._bytes = 0
            self._pinged = self._number
            self._room.notify_all()
        out: list[Line] = []
        told: set[str] = set()
        for line in lines:
            if line.target.startswith(("#", "&")) and line.target.lower() not in told:
                told.add(line.target.lower())
                line = replace(line, text=f"Meanwhile: {line.text}")
            out.append(line)
        self.resent += len(out)
        return out
