"""Small in-process caches of what is expensive to read and never (or only slowly) changes, so that asking for
it again costs the gateway little: finished matches' logs and their encoded answers (a finished log never
changes), and the lobby's pages (a second old at most). Each is bounded in entries: a client asking for many
different things evicts, it does not grow memory."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class Lru(Generic[V]):
    """At most ``size`` entries, the least recently used dropped first; with ``ttl_s``, an entry older than
    that is not served."""

    def __init__(self, size: int, ttl_s: float | None = None) -> None:
        self.size = size
        self.ttl_s = ttl_s
        self._items: OrderedDict[Hashable, tuple[float, V]] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable) -> V | None:
        item = self._items.get(key)
        if item is None or (self.ttl_s is not None and time.monotonic() - item[0] > self.ttl_s):
            self.misses += 1
            return None
        self._items.move_to_end(key)
        self.hits += 1
        return item[1]

    def peek(self, key: Hashable) -> V | None:
        """The entry, without counting a use."""
        item = self._items.get(key)
        return item[1] if item is not None else None

    def put(self, key: Hashable, value: V) -> V:
        self._items[key] = (time.monotonic(), value)
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)
        return value

    def clear(self) -> None:
        self._items.clear()

    def __len__(self) -> int:
        return len(self._items)
