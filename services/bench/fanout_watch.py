"""A watcher process of ``airship bench fanout``: many spectator WebSockets, each subscribed to some matches'
public views, noting when each view version first reached each socket.

``python -m services.bench.fanout_watch``, talking JSON lines: it reads the job from its first stdin line
(``ws_url``, ``source`` (a loopback address to connect from), ``sockets`` (per socket, the match ids it
watches)), opens and subscribes every socket, prints ``{"ready": n}`` once every subscription showed its first
view (a socket refused or closed before is counted and not waited for), then reads until a ``stop`` line and
prints ``{"report": {"seen": {"<match> <version>": [t, ...]}, "errors": [...], "closed": n}}``: for each match
version, the wall-clock time each of its watching sockets got it (:func:`time.time`, comparable across the
processes of one host).
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections import defaultdict
from typing import Any

import websockets

CONNECT_AT_ONCE = 100


async def watch(job: dict[str, Any]) -> None:
    seen: dict[str, list[float]] = defaultdict(list)
    errors: list[str] = []
    closed = 0
    first: dict[int, set[str]] = {}
    ready = asyncio.Event()
    shares: list[list[str]] = job["sockets"]
    waiting = sum(len(s) for s in shares)

    def given_up(pending: set[str]) -> None:
        """A socket that will show no more first views (refused, closed): the others need not wait for it."""
        nonlocal waiting
        waiting -= len(pending)
        pending.clear()
        if waiting == 0:
            ready.set()

    async def one(i: int, matches: list[str], gate: asyncio.Semaphore) -> None:
        nonlocal waiting, closed
        pending = set(matches)
        first[i] = pending
        async with gate:
            try:
                ws = await websockets.connect(job["ws_url"], max_size=None, ping_interval=None, open_timeout=60,
                                              local_addr=(job["source"], 0))
                for match_id in matches:
                    await ws.send(json.dumps({"kind": "subscribe", "match_id": match_id}))
            except Exception as e:  # e.g. refused past the gateway's capacity: counted, not waited for
                closed += 1
                if len(errors) < 20:
                    errors.append(f"connect: {e!r}"[:200])
                given_up(pending)
                return
        try:
            async for raw in ws:
                msg = json.loads(raw)
                if msg["kind"] == "view":
                    seen[f"{msg['match_id']} {msg['version']}"].append(time.time())
                    if msg["match_id"] in pending:
                        pending.discard(msg["match_id"])
                        waiting -= 1
                        if waiting == 0:
                            ready.set()
                elif msg["kind"] == "error" and len(errors) < 20:
                    errors.append(str(msg)[:200])
        except websockets.ConnectionClosed as e:
            closed += 1
            if len(errors) < 20:
                errors.append(f"closed: {e}"[:200])
            given_up(pending)

    gate = asyncio.Semaphore(CONNECT_AT_ONCE)
    tasks = [asyncio.create_task(one(i, share, gate)) for i, share in enumerate(shares)]
    await ready.wait()
    print(json.dumps({"ready": len(shares)}), flush=True)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.readline)  # "stop"
    for task in tasks:
        task.cancel()
    print(json.dumps({"report": {"seen": seen, "errors": errors, "closed": closed}}), flush=True)


def main() -> None:
    job = json.loads(sys.stdin.readline())
    asyncio.run(watch(job))


if __name__ == "__main__":
    main()
