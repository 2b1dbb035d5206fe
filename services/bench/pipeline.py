"""``airship bench pipeline``: commands per second end to end through Redis, with 1, 2, 4... workers.

For each worker count: a fresh key prefix, that many ``airship worker`` processes and one ``airship
projector`` process, ``matches`` matches of the benchmark game (:mod:`services.pipeline.bench_game`) each
driven by one client thread of this process that sends a command and waits for its result, then the next.
Latency is from publishing a command to reading its result. Beside it, ``redis-benchmark`` measures plain
XADD on the same server in the same run, as the ceiling a single Redis offers.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass
from urllib.parse import urlparse

from services.bench import TALLY_MODULES, register_tally
from services.pipeline.client import Client
from services.pipeline.redis_backend import RedisBackend, connect, delete_prefix
from services.settings import Settings


@dataclass(frozen=True)
class Row:
    label: str
    commands: int
    seconds: float
    latencies_ms: list[float]

    @property
    def per_s(self) -> float:
        return self.commands / self.seconds if self.seconds else 0.0

    def pct(self, q: float) -> float:
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def start_services(settings: Settings, workers: int, projectors: int = 1) -> list[subprocess.Popen[bytes]]:
    env = {**os.environ, "AIRSHIP_GAME_MODULES": TALLY_MODULES, "AIRSHIP_BLOCK_MS": "200"}
    base = [sys.executable, "-m", "services.cli", "--log-level", "warning"]
    flags = ["--redis", settings.redis_url, "--prefix", settings.key_prefix, "--partitions", str(settings.partitions)]
    kinds = ["worker"] * workers + ["projector"] * projectors
    return [subprocess.Popen([*base, kind, *flags], env=env) for kind in kinds]


def stop_services(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        proc.send_signal(signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()


def measure(settings: Settings, workers: int, matches: int, commands: int) -> Row:
    register_tally()  # the lobby here must know the game
    procs = start_services(settings, workers)
    backend = RedisBackend(settings)
    client = Client(backend, poll_ms=200)
    try:
        seats = []
        for _ in range(matches):
            meta = client.create_match("tally", 1)
            seats.append((meta.match_id, client.join(meta.match_id, 0)[1]))
        for match_id, credential in seats:  # warm-up: every worker is up and every cache is loaded
            client.call(match_id, 0, credential, "add", {"n": 1}, timeout_s=60)
        latencies: list[float] = []
        remaining = [commands]
        lock = threading.Lock()

        def drive(match_id: str, credential: str) -> None:
            while True:
                with lock:
                    if remaining[0] <= 0:
                        return
                    remaining[0] -= 1
                started = time.perf_counter()
                result = client.call(match_id, 0, credential, "add", {"n": 1})
                elapsed_ms = (time.perf_counter() - started) * 1000
                if result.status != "accepted":
                    raise RuntimeError(f"bench command rejected: {result.reason}")
                with lock:
                    latencies.append(elapsed_ms)

        threads = [threading.Thread(target=drive, args=seat) for seat in seats]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        seconds = time.perf_counter() - started
        _await_views(client, seats)
        return Row(f"{workers} worker{'s' if workers > 1 else ''}", len(latencies), seconds, latencies)
    finally:
        stop_services(procs)
        delete_prefix(backend.redis, settings.key_prefix)
        backend.close()


def _await_views(client: Client, seats: list[tuple[str, str]]) -> None:
    """The projector keeps up: every public view reaches the final version."""
    for match_id, _ in seats:
        client.wait_view(match_id, "public", client.backend.store.version(match_id), timeout_s=60)


def redis_benchmark_xadd(settings: Settings, requests: int, clients: int) -> Row | None:
    """Plain XADD through ``redis-benchmark`` on the same server (None when it is not installed)."""
    exe = shutil.which("redis-benchmark")
    if exe is None:
        return None
    url = urlparse(settings.redis_url)
    key = f"{settings.key_prefix}:bench-xadd"
    cmd = [exe, "-h", url.hostname or "127.0.0.1", "-p", str(url.port or 6379), "-n", str(requests),
           "-c", str(clients), "--csv", "--dbnum", (url.path or "/0").lstrip("/") or "0"]
    if url.password:
        cmd += ["-a", url.password]
    try:
        out = subprocess.run([*cmd, "XADD", key, "MAXLEN", "~", "10000", "*", "e", "x" * 100],
                             capture_output=True, text=True, timeout=300, check=True).stdout
    finally:
        connect(settings.redis_url).delete(key)
    rows = list(csv.DictReader(io.StringIO(out)))
    if not rows:
        return None
    row = rows[-1]
    rps = float(row["rps"])
    latencies = [float(row[k]) for k in ("p50_latency_ms", "p95_latency_ms", "p99_latency_ms", "max_latency_ms")]
    return Row(f"redis-benchmark XADD -c {clients}", requests, requests / rps, latencies)


def run_pipeline_bench(settings: Settings, worker_counts: list[int], matches: int, commands: int,
                       xadd_requests: int, as_json: bool = False) -> int:
    rows = []
    for workers in worker_counts:
        run = settings.with_(key_prefix=f"{settings.key_prefix}-bench-{uuid.uuid4().hex[:6]}")
        rows.append(measure(run, workers, matches, commands))
        print(f"measured {rows[-1].label}", file=sys.stderr)
    xadds = {}
    for clients in (1, 50):
        xadd = redis_benchmark_xadd(settings, xadd_requests, clients)
        if xadd is None:
            break
        xadds[clients] = xadd
    best = max((row.per_s for row in rows), default=0.0)
    ratio = best / xadds[1].per_s if 1 in xadds and xadds[1].per_s else None
    if as_json:
        print(json.dumps({"bench": "pipeline", "matches": matches, "commands": commands,
                          "partitions": settings.partitions,
                          "runs": [{"workers": w, "commands_per_s": round(r.per_s, 1),
                                    "p50_ms": round(r.pct(0.5), 2), "p90_ms": round(r.pct(0.9), 2),
                                    "p99_ms": round(r.pct(0.99), 2),
                                    "max_ms": round(max(r.latencies_ms, default=0), 2)}
                                   for w, r in zip(worker_counts, rows, strict=True)],
                          "xadd": {str(c): {"requests_per_s": round(x.per_s, 1), "p50_ms": x.latencies_ms[0],
                                            "p99_ms": x.latencies_ms[2]} for c, x in xadds.items()},
                          "best_commands_per_s": round(best, 1),
                          "ratio_to_single_client_xadd": round(ratio, 4) if ratio is not None else None}))
        return 0
    print(f"pipeline: {matches} matches driven concurrently, {commands} commands per run, "
          f"{settings.partitions} partitions, latency = publish to result")
    print(f"{'':26} {'commands/s':>11} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for row in rows:
        print(f"{row.label:26} {row.per_s:11,.0f} {row.pct(0.5):8.2f} {row.pct(0.9):8.2f} {row.pct(0.99):8.2f} "
              f"{max(row.latencies_ms, default=0):8.2f}")
    print(f"{'':26} {'requests/s':>11} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    if not xadds:
        print("redis-benchmark: not installed (or no output); no XADD figure")
    for xadd in xadds.values():
        p50, p95, p99, top = xadd.latencies_ms
        print(f"{xadd.label:26} {xadd.per_s:11,.0f} {p50:8.2f} {p95:8.2f} {p99:8.2f} {top:8.2f}")
    if ratio is not None:
        print(f"best pipeline rate / single-client XADD rate: {ratio:.3f} ({ratio:.1%})")
    if rows:
        print(f"mean latency of the last run: {statistics.fmean(rows[-1].latencies_ms or [0]):.2f} ms")
    return 0
