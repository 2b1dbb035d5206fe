"""What the bridge sends, paced: one queue per table, served in turn, under the server's flood limit.

Every line belongs to a table's queue (its channel) or to the queue of lines of no table (help, errors
outside any table). The sender takes one line at a time: the next table in turn that has something to
send, and from that table its urgent lines (the prompt of the player to act, the reply to who just wrote)
before the rest. A table with a long backlog (a flood of ``!board``) so delays another table by at most one
line per turn, whatever its own backlog. The pace is a token bucket: ``burst`` lines at once, then one
every ``line_interval_s`` (0: no limit, for a server of one's own), and at most ``bytes_per_s`` bytes a
second on average. The match's lines (``keep``: events, prompts, news) go before chatter (answers to what
people wrote in the channel; at most ``KEEP_RUN`` in a row while chatter waits) and are never dropped for
room: a table over ``max_queued`` lines drops its oldest chatter. Urgent lines overtake the table's other
lines at most ``URGENT_RUN`` at a time, so the channel's lines are never held back for good. A line may
expire (``expires``, on the outbox's clock): one still queued then is dropped, never sent late (a reminder
that 10 s are left, held up behind a backlog past the deadline).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from services.chat.irc.protocol import TEXT_BYTES, split_text

NO_TABLE = ""
MAX_QUEUED = 400  # lines per table; beyond it the oldest non-urgent lines are dropped
URGENT_RUN = 2  # urgent lines of a table sent in a row before one of its other lines
KEEP_RUN = 3  # the match's lines of a table sent in a row before one line of chatter


@dataclass(frozen=True, slots=True)
class Line:
    target: str  # a channel or a nick
    text: str
    table: str = NO_TABLE  # the queue: the table's channel in lower case
    urgent: bool = False  # before the table's other lines: a prompt, or the answer to who just wrote
    whole: bool = False  # a line of its own (a row of the board), never joined with the next
    expires: float | None = None  # when it is no longer worth sending (the outbox's clock); None: never
    keep: bool = False  # a line of the match (an event, a prompt, news): sent before chatter, never dropped for room


@dataclass(slots=True)
class _Queue:
    urgent: deque[Line] = field(default_factory=deque)
    normal: deque[Line] = field(default_factory=deque)  # the match's lines (keep)
    chatter: deque[Line] = field(default_factory=deque)  # answers to what people wrote in the channel
    run: int = 0  # urgent lines sent in a row while normal ones waited
    kept: int = 0  # the match's lines sent in a row while chatter waited

    def __len__(self) -> int:
        return len(self.urgent) + len(self.normal) + len(self.chatter)

    def pop(self) -> Line:
        """Urgent lines first, but never more than ``URGENT_RUN`` in a row while other lines wait: the
        channel's lines are delayed by prompts, never held back for good. The match's lines before chatter, but
        never more than ``KEEP_RUN`` in a row while chatter waits (a board asked for still comes)."""
        rest = bool(self.normal or self.chatter)
        if self.urgent and (self.run < URGENT_RUN or not rest):
            self.run = self.run + 1 if rest else 0
            return self.urgent.popleft()
        self.run = 0
        if self.normal and (self.kept < KEEP_RUN or not self.chatter):
            self.kept = self.kept + 1 if self.chatter else 0
            return self.normal.popleft()
        self.kept = 0
        return self.chatter.popleft()

    def drop_one(self) -> bool:
        """Make room: the oldest line that is not the match's (chatter, then an urgent answer). False if every
        queued line is the match's: those are never dropped."""
        if self.chatter:
            self.chatter.popleft()
            return True
        for i, line in enumerate(self.urgent):
            if not line.keep:
                del self.urgent[i]
                return True
        return False


class Outbox:
    """Thread-safe: the bridge's reader and poster put lines, its sender takes them."""

    def __init__(self, line_interval_s: float = 0.0, burst: int = 5, max_queued: int = MAX_QUEUED,
                 clock: Callable[[], float] = time.monotonic, bytes_per_s: float = 0.0) -> None:
        """``bytes_per_s``: the most bytes a second on average (0: no limit), beside the lines' pace."""
        self.line_interval_s = line_interval_s
        self.bytes_per_s = bytes_per_s
        self._byte_debt = 0.0  # bytes sent beyond what the byte pace allowed so far
        self.burst = max(1, burst)
        self.max_queued = max_queued
        self.clock = clock
        self.dropped = 0
        self.expired = 0
        self._queues: OrderedDict[str, _Queue] = OrderedDict()  # in turn: the first is served next
        self._allowance = float(self.burst)
        self._stamp = clock()
        self._byte_stamp = clock()
        self._ready = threading.Condition()

    def put(self, lines: Iterable[Line]) -> None:
        """Queue the lines: consecutive ones to the same target are joined while they fit one IRC line (a
        move's events and who is next: one line, not four), and a text too long for one IRC line becomes
        several, cut between sentences."""
        with self._ready:
            for line in joined(lines):
                queue = self._queues.get(line.table)
                if queue is None:
                    queue = self._queues[line.table] = _Queue()
                pieces = [p for p in split_text(line.text) if p]
                for piece in pieces:
                    (queue.urgent if line.urgent else queue.normal if line.keep else queue.chatter).append(
                        Line(line.target, piece, line.table, line.urgent, expires=line.expires, keep=line.keep))
                while len(queue) > self.max_queued and queue.drop_one():
                    self.dropped += 1
            self._ready.notify_all()

    def unget(self, line: Line) -> None:
        """Put back a line that could not be sent (the connection broke): it goes first when it is back."""
        with self._ready:
            queue = self._queues.setdefault(line.table, _Queue())
            queue.urgent.appendleft(line)
            self._queues.move_to_end(line.table, last=False)
            self._allowance = min(float(self.burst), self._allowance + 1)
            self._ready.notify_all()

    def queued(self, table: str | None = None) -> int:
        with self._ready:
            if table is not None:
                queue = self._queues.get(table)
                return len(queue) if queue else 0
            return sum(len(q) for q in self._queues.values())

    def drop(self, table: str, target: str | None = None) -> None:
        """Forget a table's queued lines (to ``target`` only, when given): e.g. the private lines of a player
        who left."""
        with self._ready:
            queue = self._queues.get(table)
            if queue is None:
                return
            if target is None:
                del self._queues[table]
                return
            low = target.lower()
            queue.urgent = deque(line for line in queue.urgent if line.target.lower() != low)
            queue.normal = deque(line for line in queue.normal if line.target.lower() != low)
            queue.chatter = deque(line for line in queue.chatter if line.target.lower() != low)

    def take(self, stop: threading.Event, poll_s: float = 0.25) -> Line | None:
        """The next line to send, once the flood limit allows it; None once ``stop`` is set."""
        with self._ready:
            while not stop.is_set():
                wait = self._wait_s()
                if wait <= 0:
                    line = self._next()
                    if line is not None:
                        self._spend(line)
                        return line
                    wait = poll_s
                self._ready.wait(min(wait, poll_s))
            return None

    # -- inside the lock -------------------------------------------------------------------------
    def _refill(self) -> None:
        now = self.clock()
        if self.line_interval_s > 0:
            self._allowance = min(float(self.burst), self._allowance + (now - self._stamp) / self.line_interval_s)
        self._stamp = now

    def _wait_s(self) -> float:
        """Seconds until a line may go (0: now): the lines' pace, and the bytes' (the debt of the lines sent)."""
        now = self.clock()
        if self.bytes_per_s > 0:
            self._byte_debt = max(0.0, self._byte_debt - (now - self._byte_stamp) * self.bytes_per_s)
            self._byte_stamp = now
        byte_wait = self._byte_debt / self.bytes_per_s if self.bytes_per_s > 0 else 0.0
        if self.line_interval_s <= 0:
            return byte_wait
        self._refill()
        return max(byte_wait, 0.0 if self._allowance >= 1 else (1 - self._allowance) * self.line_interval_s)

    def _spend(self, line: Line) -> None:
        if self.line_interval_s > 0:
            self._allowance -= 1
        if self.bytes_per_s > 0:  # the next line waits until this one's bytes are paid for
            self._byte_debt += len(line.text.encode()) + len(line.target) + 12  # "PRIVMSG <target> :...\r\n"

    def _next(self) -> Line | None:
        """The first table in turn with a line; that table goes to the back of the turn. Expired lines are
        dropped on the way."""
        now: float | None = None
        for table, queue in list(self._queues.items()):
            line: Line | None = None
            while queue and line is None:
                line = queue.pop()
                if line.expires is not None:
                    now = self.clock() if now is None else now
                    if line.expires <= now:
                        self.expired += 1
                        line = None
            if not queue:
                del self._queues[table]
            elif line is not None:
                self._queues.move_to_end(table)
            if line is not None:
                return line
        return None


def joined(lines: Iterable[Line], limit: int = TEXT_BYTES) -> list[Line]:
    """Consecutive lines of one table to one target with one urgency (and one kind: the match's, or chatter), joined
    while they fit ``limit`` bytes."""
    out: list[Line] = []
    for line in lines:
        last = out[-1] if out else None
        if (last is not None and not last.whole and not line.whole
                and (last.target, last.table, last.urgent, last.expires, last.keep) ==
                (line.target, line.table, line.urgent, line.expires, line.keep)
                and len(last.text.encode()) + 2 + len(line.text.encode()) <= limit):
            stop = "" if last.text.endswith((".", "!", "?", ":", ")")) else "."  # sentences stay sentences
            out[-1] = Line(last.target, f"{last.text}{stop} {line.text}", last.table, last.urgent,
                           expires=last.expires, keep=last.keep)
        else:
            out.append(line)
    return out


class Cooldowns:
    """At most one use per ``period_s`` for each key (e.g. ``!board`` per nick and per channel)."""

    def __init__(self, period_s: float, clock: Callable[[], float] = time.monotonic, max_keys: int = 10_000) -> None:
        self.period_s = period_s
        self.clock = clock
        self.max_keys = max_keys
        self._last: dict[str, float] = {}

    def wait_s(self, *keys: str) -> float:
        """0 if every key may be used now (then each is marked used), else how long until they all may."""
        now = self.clock()
        wait = max((self._last.get(k, float("-inf")) + self.period_s - now for k in keys), default=0.0)
        if wait > 0:
            return wait
        if len(self._last) > self.max_keys:
            self._last = {k: t for k, t in self._last.items() if now - t < self.period_s}
        for key in keys:
            self._last[key] = now
        return 0.0
