"""``airship bench clocks``: what watching the deadlines of many running clocked matches costs (#29).

``matches`` running tally matches (the bench game: its rules cost next to nothing) on a fresh key prefix, served by
``workers`` real ``airship worker`` processes (their load generated apart from this process), measured in three
windows of ``seconds`` each, side by side:

1. **baseline**: the same number of running matches without a clock: what idle workers cost anyway;
2. **watching**: every match clocked with deadlines far beyond the window: the cost of the sweep alone (each
   worker's ``ZRANGEBYSCORE`` per partition every 0.2 s);
3. **firing**: every match clocked with ``clock_s`` per decision and nobody moving, so each deadline becomes a
   timeout the workers decide (the service's stand-in moves for the seat): about ``matches / clock_s`` timeouts
   per second, and how late each was decided after its deadline (p50, p99, max, from the logs' ``TimedOut``).

Per window: the workers' and Redis's CPU seconds per second (``/proc`` and ``INFO cpu``).
"""

from __future__ import annotations

import json
import sys
import time
import uuid
from dataclasses import asdict, dataclass
from typing import Any

from schemas.clock import TIMED_OUT, TimeControl
from services.bench import register_tally
from services.bench.pipeline import _cpu_of, _redis_cpu, start_services, stop_services
from services.pipeline import lobby
from services.pipeline.redis_backend import RedisBackend, delete_prefix
from services.settings import Settings


@dataclass
class Window:
    name: str
    seconds: float
    worker_cpu_per_s: float | None
    redis_cpu_per_s: float
    timeouts: int = 0
    late_ms_p50: float | None = None
    late_ms_p99: float | None = None
    late_ms_max: float | None = None


def _progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _create(backend: RedisBackend, matches: int, clock: TimeControl | None) -> list[str]:
    ids = []
    for n in range(matches):
        meta = lobby.create_match(backend.store, "tally", 1, clock=clock)
        lobby.join(backend.store, meta.match_id, 0)
        ids.append(meta.match_id)
        if n and n % 2000 == 0:
            _progress(f"  {n} of {matches} matches created")
    return ids


def percentile(ordered: list[float], q: float) -> float:
    """The ``q``-th percentile of sorted values (nearest rank)."""
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


def _window(name: str, backend: RedisBackend, procs: list[Any], seconds: float) -> tuple[Window, float, float]:
    started_ms = time.time() * 1000
    cpu0, redis0, t0 = _cpu_of(procs), _redis_cpu(backend.redis), time.monotonic()
    time.sleep(seconds)
    cpu1, redis1, elapsed = _cpu_of(procs), _redis_cpu(backend.redis), time.monotonic() - t0
    worker = (cpu1 - cpu0) / elapsed if cpu0 is not None and cpu1 is not None else None
    return Window(name, round(elapsed, 2), round(worker, 4) if worker is not None else None,
                  round((redis1 - redis0) / elapsed, 4)), started_ms, time.time() * 1000


def _lateness(backend: RedisBackend, ids: list[str], since_ms: float, until_ms: float) -> list[float]:
    late = []
    for match_id in ids:
        for event in backend.store.read_log(match_id):
            if event.type == TIMED_OUT and since_ms <= event.body["at_ms"] <= until_ms:
                late.append(float(event.body["at_ms"] - event.body["deadline_ms"]))
    return late


def measure(settings: Settings, matches: int, workers: int, seconds: float, clock_s: float) -> list[Window]:
    register_tally()
    windows = []
    plans: list[tuple[str, TimeControl | None]] = [
        ("baseline", None),
        ("watching", TimeControl(kind="move", seconds=3600.0, timeouts=20)),
        ("firing", TimeControl(kind="move", seconds=clock_s, timeouts=20)),
    ]
    for name, clock in plans:
        run = settings.with_(key_prefix=f"{settings.key_prefix}-clk-{uuid.uuid4().hex[:6]}")
        backend = RedisBackend(run)
        procs = start_services(run, workers, projectors=0)
        try:
            _progress(f"{name}: creating {matches} running matches ({'no clock' if clock is None else clock.kind})")
            ids = _create(backend, matches, clock)
            time.sleep(min(2.0, seconds))  # the workers lease their partitions and settle
            _progress(f"{name}: measuring {seconds:.0f} s")
            window, since, until = _window(name, backend, procs, seconds)
            if name == "firing":
                late = sorted(_lateness(backend, ids, since, until))
                window.timeouts = len(late)
                if late:
                    window.late_ms_p50 = round(percentile(late, 50), 1)
                    window.late_ms_p99 = round(percentile(late, 99), 1)
                    window.late_ms_max = round(late[-1], 1)
            windows.append(window)
        finally:
            stop_services(procs)
            delete_prefix(backend.redis, run.key_prefix)
            backend.close()
    return windows


def run(settings: Settings, matches: int, workers: int, seconds: float, clock_s: float, as_json: bool) -> int:
    windows = measure(settings, matches, workers, seconds, clock_s)
    if as_json:
        print(json.dumps({"matches": matches, "workers": workers, "clock_s": clock_s,
                          "windows": [asdict(w) for w in windows]}))
        return 0
    print(f"{matches} running tally matches, {workers} worker process(es); firing: {clock_s} s per decision")
    print(f"{'window':10} {'worker cpu/s':>13} {'redis cpu/s':>12} {'timeouts/s':>11} {'late p50':>9} "
          f"{'late p99':>9} {'late max':>9}")
    for w in windows:
        rate = f"{w.timeouts / w.seconds:.0f}" if w.timeouts else "-"
        print(f"{w.name:10} {w.worker_cpu_per_s if w.worker_cpu_per_s is not None else '-':>13} "
              f"{w.redis_cpu_per_s:>12} {rate:>11} {w.late_ms_p50 or '-':>9} {w.late_ms_p99 or '-':>9} "
              f"{w.late_ms_max or '-':>9}")
    return 0
