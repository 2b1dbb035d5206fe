"""A read flood from its own process (the load is generated apart from the client whose latency is measured: 16
threads in the measuring process would hold its GIL and time themselves, not the gateway).

``python -m tests.gateway.read_flood URL ADDRESS PATH SECONDS THREADS`` GETs ``PATH`` from ``ADDRESS`` with
``THREADS`` clients as fast as they can for ``SECONDS`` and prints the counts as one JSON line."""

from __future__ import annotations

import json
import sys
import threading
import time

from tests.gateway.attack_kit import from_address


def flood(url: str, address: str, path: str, seconds: float, threads: int) -> dict[str, int]:
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

    workers = [threading.Thread(target=run) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return counts


if __name__ == "__main__":
    url, address, path, seconds, threads = sys.argv[1:6]
    print(json.dumps(flood(url, address, path, float(seconds), int(threads))), flush=True)
