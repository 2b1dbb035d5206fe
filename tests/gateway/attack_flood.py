"""A flood of commands from one seat token, run as its own process (so it does not share the test's
interpreter lock with the latency being measured):

    python -m tests.gateway.attack_flood URL MATCH_ID TOKEN SECONDS THREADS

It sends commands as fast as it can from 127.0.0.2 (another address than the test's, so the seat token's
limit is what stops it) for SECONDS, then prints one JSON line: every status, and the Retry-After,
content type and body of a few 429 answers.
"""

from __future__ import annotations

import json
import sys
import threading
import time
import uuid
from typing import Any

import httpx


def flood(url: str, match_id: str, token: str, seconds: float, threads: int) -> dict[str, Any]:
    statuses: list[int] = []
    limited: list[dict[str, Any]] = []
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def run() -> None:
        transport = httpx.HTTPTransport(local_address="127.0.0.2")
        with httpx.Client(base_url=url, timeout=30, trust_env=False, transport=transport) as c:
            while time.monotonic() < deadline:
                command = {"idempotency_key": f"f-{uuid.uuid4().hex[:12]}", "type": "take", "body": {"n": 1}}
                answer = c.post(f"/matches/{match_id}/commands", json=command, params={"wait_s": 0},
                                headers={"Authorization": f"Bearer {token}"})
                with lock:
                    statuses.append(answer.status_code)
                    if answer.status_code == 429 and len(limited) < 20:
                        limited.append({"retry_after": answer.headers.get("retry-after"),
                                        "content_type": answer.headers.get("content-type"),
                                        "body": answer.json()})

    workers = [threading.Thread(target=run) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return {"statuses": statuses, "limited": limited}


if __name__ == "__main__":
    url, match_id, token, seconds, threads = sys.argv[1:6]
    print(json.dumps(flood(url, match_id, token, float(seconds), int(threads))), flush=True)
