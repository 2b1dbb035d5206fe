"""Helpers of the client tests."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from typing import Any

NIM_TAKE = "take"


def dead_url() -> str:
    """A loopback URL where nothing listens."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    return f"http://127.0.0.1:{port}"


def run_threads(targets: list[Callable[[], Any]], timeout_s: float = 60.0) -> list[Any]:
    """Run each target on its own thread; their results (or the exception each raised), in order."""
    results: list[Any] = [None] * len(targets)

    def run(i: int, target: Callable[[], Any]) -> None:
        try:
            results[i] = target()
        except BaseException as e:
            results[i] = e

    threads = [threading.Thread(target=run, args=(i, t), daemon=True) for i, t in enumerate(targets)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout_s)
    assert not any(t.is_alive() for t in threads), "a thread did not finish"
    return results
