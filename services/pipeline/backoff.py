"""Growing pauses between retries of a service loop that keeps failing (Redis restarting, a lost connection)."""

from __future__ import annotations

import random


class Backoff:
    """Growing pauses after consecutive failures of a service loop (a lost connection), reset on success:
    ``first_s``, then ``factor`` times as long each time, at most ``max_s``. With ``jitter`` each pause is drawn
    from the upper half of its step (between half of it and all of it), so that many clients that lost the same
    server do not all come back at the same instant."""

    def __init__(self, first_s: float = 0.05, max_s: float = 2.0, factor: float = 2.0, jitter: bool = False) -> None:
        self.first_s = first_s
        self.max_s = max_s
        self.factor = factor
        self.jitter = jitter
        self._next_s = first_s

    def next_s(self) -> float:
        step, self._next_s = self._next_s, min(self._next_s * self.factor, self.max_s)
        return step * (0.5 + 0.5 * random.random()) if self.jitter else step

    def reset(self) -> None:
        self._next_s = self.first_s


def reconnect_backoff() -> Backoff:
    """The clients' pauses before reconnecting to a gateway that went away (restarted, rolled): 0.1 s, growing by
    half each time to 2 s, jittered. A gateway back after ``T`` seconds is found again at most about ``T / 2`` later
    (the pause in progress), 2 s once it is long gone: never a doubled pause of many seconds (docs/gateway.md)."""
    return Backoff(0.1, 2.0, factor=1.5, jitter=True)
