"""An in-process stream with Redis Streams semantics: ids, consumer groups, pending entries, claims.

Used by the in-process backend so the worker and projector run the same code paths as on Redis.
Thread-safe; blocking reads wait on a shared condition.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from services.pipeline.ports import Delivery, Pending


@dataclass(slots=True)
class _Pending:
    consumer: str
    delivered_at: float
    count: int


@dataclass(slots=True)
class _Group:
    last_delivered: int = 0
    pending: dict[int, _Pending] = field(default_factory=dict)


class MemStream:
    def __init__(self, name: str, cond: threading.Condition, maxlen: int | None = None) -> None:
        self.name = name
        self._cond = cond
        self._maxlen = maxlen
        self._entries: dict[int, bytes] = {}
        self._added: dict[int, float] = {}
        self._problems: dict[int, str] = {}  # entries without a payload field (as on Redis): why
        self._next = 1
        self._groups: dict[str, _Group] = {}

    def add(self, data: bytes, problem: str | None = None) -> str:
        """Add an entry; ``problem``: add one that has no payload (like a Redis entry without the field)."""
        with self._cond:
            seq = self._next
            self._next += 1
            self._entries[seq] = data
            self._added[seq] = time.monotonic()
            if problem is not None:
                self._problems[seq] = problem
            if self._maxlen is not None and len(self._entries) > self._maxlen:
                for old in sorted(self._entries)[: len(self._entries) - self._maxlen]:
                    del self._entries[old]
                    self._added.pop(old, None)
                    self._problems.pop(old, None)
            self._cond.notify_all()
            return f"{seq}-0"

    def end(self) -> str:
        """The id of the newest entry ever added ("0" when none)."""
        with self._cond:
            return f"{self._next - 1}-0" if self._next > 1 else "0"

    def __len__(self) -> int:
        return len(self._entries)

    def range(self, after: int = 0) -> list[tuple[int, bytes]]:
        with self._cond:
            return [(seq, data) for seq, data in sorted(self._entries.items()) if seq > after]

    def group(self, name: str) -> _Group:
        group = self._groups.get(name)
        if group is None:
            group = self._groups[name] = _Group()
        return group

    def read_group(self, group_name: str, consumer: str, count: int) -> list[Delivery]:
        """New entries for the group (like XREADGROUP with '>'). Caller holds the condition."""
        group = self.group(group_name)
        out: list[Delivery] = []
        now = time.monotonic()
        for seq in range(group.last_delivered + 1, self._next):
            if len(out) >= count:
                break
            group.last_delivered = seq
            data = self._entries.get(seq)
            if data is None:  # trimmed
                continue
            group.pending[seq] = _Pending(consumer, now, 1)
            out.append(Delivery(self.name, f"{seq}-0", data, 1, self._problems.get(seq)))
        return out

    def ack(self, group_name: str, entry_id: str) -> None:
        with self._cond:
            self.group(group_name).pending.pop(int(entry_id.split("-")[0]), None)

    def claim(self, group_name: str, consumer: str, min_idle_ms: int, count: int) -> list[Delivery]:
        """Like XAUTOCLAIM: take over entries idle at least ``min_idle_ms``; counts a delivery."""
        with self._cond:
            group = self.group(group_name)
            now = time.monotonic()
            out: list[Delivery] = []
            for seq, pending in sorted(group.pending.items()):
                if len(out) >= count:
                    break
                if (now - pending.delivered_at) * 1000 < min_idle_ms:
                    continue
                data = self._entries.get(seq)
                if data is None:
                    del group.pending[seq]
                    continue
                pending.consumer, pending.delivered_at = consumer, now
                pending.count += 1
                out.append(Delivery(self.name, f"{seq}-0", data, pending.count, self._problems.get(seq)))
            return out

    def pending(self, group_name: str) -> Pending:
        """Like the XPENDING summary: how many are pending, and the age of the oldest. Caller holds the condition."""
        group = self.group(group_name)
        if not group.pending:
            return Pending(0, 0.0)
        oldest = self._added.get(min(group.pending))
        return Pending(len(group.pending), time.monotonic() - oldest if oldest is not None else 0.0)

    def undelivered(self, group_name: str) -> int:
        group = self.group(group_name)
        return sum(1 for seq in self._entries if seq > group.last_delivered)

