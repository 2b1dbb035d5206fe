"""Floods from a process of their own, at the lowest CPU priority: the load is generated apart from the client
whose latency is measured (threads in the measuring process would hold its GIL and time themselves), and on this
shared 2-core box it takes only what the service measured leaves idle, as an attacker's own machine would.

``python -m tests.gateway.flood_client get URL ADDRESS PATH SECONDS THREADS``: ``THREADS`` clients from ``ADDRESS``
GET ``PATH`` as fast as they can for ``SECONDS``; prints the counts as one JSON line.

``python -m tests.gateway.flood_client ping WS_URL ADDRESS SECONDS SOCKETS``: ``SOCKETS`` WebSockets from
``ADDRESS`` send pings as fast as they can for ``SECONDS`` (or until closed); prints each one's result."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def start(*args: str) -> subprocess.Popen[str]:
    """The flood ``args`` in its own process, at nice 19; its JSON line is what ``communicate`` returns."""
    return subprocess.Popen([sys.executable, "-m", "tests.gateway.flood_client", *args], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True, preexec_fn=lambda: os.nice(19))


def get_flood(url: str, address: str, path: str, seconds: float, threads: int) -> dict[str, int]:
    from tests.gateway.attack_kit import from_address

    counts = {"ok": 0, "refused": 0, "other": 0, "bytes": 0}
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def run() -> None:
        with from_address(url, address) as c:
            while time.monotonic() < stop:
                answer = c.get(path)
                with lock:
                    kind = "ok" if answer.status_code == 200 else "refused" if answer.status_code == 429 else "other"
                    counts[kind] += 1
                    counts["bytes"] += len(answer.content) if kind == "ok" else 0

    _all(run, threads)
    return counts


def ping_flood(ws_url: str, address: str, seconds: float) -> dict[str, Any]:
    """One socket from ``address`` sending pings as fast as it can for ``seconds`` (or until the gateway closes
    it): how many it sent, and how it was closed."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    out: dict[str, Any] = {"sent": 0, "closed": None}
    try:
        ws = connect(ws_url, source_address=(address, 0), proxy=None, max_queue=None, open_timeout=10)
    except Exception as e:  # refused before it opened (the address's rate or sockets): as good as closed
        out["closed"] = f"refused: {e!r}"[:80]
        return out
    with ws:
        stop = time.monotonic() + seconds
        try:
            while time.monotonic() < stop:
                ws.send('{"kind": "ping"}')
                out["sent"] += 1
        except ConnectionClosed as e:
            out["closed"] = e.rcvd.code if e.rcvd is not None else None
        if out["closed"] is None:
            try:
                while True:
                    ws.recv(timeout=15)
            except (ConnectionClosed, TimeoutError) as e:
                out["closed"] = e.rcvd.code if isinstance(e, ConnectionClosed) and e.rcvd is not None else None
    return out


def _all(run: Any, threads: int) -> None:
    workers = [threading.Thread(target=run) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()


if __name__ == "__main__":
    kind, *rest = sys.argv[1:]
    if kind == "get":
        url, address, path, seconds, threads = rest
        print(json.dumps(get_flood(url, address, path, float(seconds), int(threads))), flush=True)
    else:
        ws_url, address, seconds, sockets = rest
        results: list[dict[str, Any]] = []
        _all(lambda: results.append(ping_flood(ws_url, address, float(seconds))), int(sockets))
        print(json.dumps(results), flush=True)
