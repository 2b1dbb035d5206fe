"""Growing pauses between retries of a service loop that keeps failing (Redis restarting, a lost connection)."""

from __future__ import annotations


class Backoff:
    """Growing pauses after consecutive failures of a service loop (a lost connection), reset on success:
    ``first_s``, then twice as long each time, at most ``max_s``."""

    def __init__(self, first_s: float = 0.05, max_s: float = 2.0) -> None:
        self.first_s = first_s
        self.max_s = max_s
        self._next_s = first_s

    def next_s(self) -> float:
        delay, self._next_s = self._next_s, min(self._next_s * 2, self.max_s)
        return delay

    def reset(self) -> None:
        self._next_s = self.first_s
