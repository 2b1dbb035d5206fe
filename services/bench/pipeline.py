"""``airship bench pipeline``: what the service does with commands, measured from outside it.

Every part runs on a fresh key prefix (deleted afterwards) with ``airship worker`` processes started for it
(``AIRSHIP_GAME_MODULES`` gives them the ``tally`` game, whose rules cost nothing, see
:mod:`services.pipeline.bench_game`); no projector runs, as results do not need one. The load comes from
load-generator processes (:mod:`services.bench.loadgen`), separate from the workers and from this process,
which only coordinates and reads the outcome.

- **drain**: the workers are started on an empty queue and, once each is in its read loop (start-up is
  over, see :func:`await_reading`), stopped with SIGSTOP. The generators then create and join their
  matches through the lobby and fill the command streams with pipelined XADDs, each match's commands in
  order. The workers are released (SIGCONT) and the time runs from just before the release (Redis ``TIME``)
  to the newest result (the id of its results-stream entry, stamped by the same Redis clock), once the
  group has neither lag nor pending entries left. Nothing of any process's start-up is in that time.
  ``tally`` with each worker count, then each built-in game with one worker: random matches played out in
  memory first (the same seed, setup and per-version rng as the service), their commands published in
  order, so every one is legal and accepted (with more workers a match's queued commands could be split
  between two batches of two workers and decided out of order, which a real client, waiting for each
  result, never causes). Each drain also reports the rate until 99 % of the results were in (a command a
  worker leaves pending after 8 version conflicts in a row waits ``AIRSHIP_CLAIM_IDLE_MS``, 30 s, to be
  claimed again, which the whole-drain rate then mostly measures), the CPU time per command of the workers
  (``/proc``) and of Redis (``INFO cpu``), and the workers' own counters (their Prometheus endpoint): append
  round trips, version conflicts, time in decide.
- **open loop**: tally commands offered at fixed rates (fractions of the drain rate with ``open_workers``
  workers), each sent at its scheduled time whatever the earlier ones did; latency from the scheduled send
  time to the result read from the match's results stream, in an HDR-style histogram.
- **XADD**: ``redis-benchmark`` on the same server in the same run, one client (``-c 1``) and one client
  pipelining 16 (``-c 1 -P 16``): the ratios say how close a worker's drain comes to what Redis does with
  plain appends.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import multiprocessing
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any, cast
from urllib.parse import urlparse

import redis
from redis.cluster import RedisCluster

from services.bench import TALLY_MODULES, loadgen, register_tally
from services.bench.histogram import Histogram
from services.games import GAMES, builtin_games, default_seats, get_game
from services.pipeline.redis_backend import RedisBackend, connect, delete_prefix
from services.pipeline.redis_conn import is_cluster
from services.pipeline.redis_streams import id_ms
from services.settings import Settings

XADD_PIPELINE = 16  # redis-benchmark -P of the pipelined XADD figure
DEFAULT_RATES = "0.25,0.5,0.75"
SEED = 1  # the real games' random matches are the same in every run


def _progress(text: str) -> None:
    print(f"bench pipeline: {text}", file=sys.stderr, flush=True)


# -- service processes -------------------------------------------------------------------------------
def start_services(settings: Settings, workers: int, projectors: int = 1, env: dict[str, str] | None = None,
                   metrics_ports: Sequence[int] = ()) -> list[subprocess.Popen[bytes]]:
    """``workers`` worker processes, then ``projectors`` projector processes, on ``settings``' prefix; worker
    ``i`` serves its metrics on ``metrics_ports[i]`` when given."""
    # Results kept whole (not trimmed to the default ~100 a match): the drain times every command by its result.
    full_env = {**os.environ, "AIRSHIP_GAME_MODULES": TALLY_MODULES, "AIRSHIP_BLOCK_MS": "200",
                "AIRSHIP_RESULTS_MAXLEN": "10000000", **(env or {})}
    base = [sys.executable, "-m", "services.cli", "--log-level", "warning"]
    flags = ["--redis", settings.redis_url, "--prefix", settings.key_prefix, "--partitions", str(settings.partitions)]
    kinds = ["worker"] * workers + ["projector"] * projectors
    ports = [["--metrics-port", str(port)] for port in metrics_ports]
    return [subprocess.Popen([*base, kind, *flags, *(ports[i] if i < len(ports) else [])], env=full_env)
            for i, kind in enumerate(kinds)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def scrape(ports: Sequence[int]) -> dict[str, float]:
    """The workers' Prometheus metrics, each summed over its label sets and over the processes (``{}`` when
    one cannot be read)."""
    out: dict[str, float] = {}
    for port in ports:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
                body = reply.read().decode()
        except OSError:
            return {}
        for line in body.splitlines():
            if line.startswith("airship_") and " " in line:
                name, value = line.split("{", 1)[0].split(" ", 1)[0], line.rsplit(" ", 1)[1]
                out[name] = out.get(name, 0.0) + float(value)
    return out


def stop_services(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGCONT)  # a stopped process would keep the SIGTERM pending
            proc.send_signal(signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process so far (Linux ``/proc``; None elsewhere or once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _cpu_of(procs: Sequence[subprocess.Popen[bytes]]) -> float | None:
    times = [cpu_seconds(p.pid) for p in procs]
    return None if any(t is None for t in times) else sum(t for t in times if t is not None)


def _redis_cpu(r: redis.Redis) -> float:
    """CPU seconds Redis used so far (every master of a cluster, summed)."""
    infos = [r.info("cpu")]
    if is_cluster(r):
        infos = list(cast(Any, r).info("cpu", target_nodes=RedisCluster.PRIMARIES).values())
    return sum(float(info["used_cpu_sys"]) + float(info["used_cpu_user"]) for info in infos)


def _client_list(r: redis.Redis) -> list[dict[str, Any]]:
    """CLIENT LIST (of every master of a cluster)."""
    if not is_cluster(r):
        return list(r.client_list())
    replies = cast(Any, r).client_list(target_nodes=RedisCluster.PRIMARIES)
    return [c for reply in (replies.values() if isinstance(replies, dict) else [replies]) for c in reply]


def _redis_now_ms(r: redis.Redis) -> float:
    seconds, micros = r.time()
    return seconds * 1000 + micros / 1000


def _queue_left(backend: RedisBackend) -> int:
    """Commands the ``workers`` group has not finished: not yet delivered (lag) or not yet acknowledged."""
    return sum(backend.bus.lag().values()) + sum(p.count for p in backend.bus.pending().values())


def _local_ports(pid: int) -> set[int]:
    """The local TCP ports of a process's sockets (Linux ``/proc``)."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(link[8:-1])
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            cols = row.split()
            if len(cols) > 9 and cols[9] in inodes:
                ports.add(int(cols[1].rsplit(":", 1)[1], 16))
    return ports


def await_reading(backend: RedisBackend, procs: Sequence[subprocess.Popen[bytes]], timeout_s: float = 120.0) -> None:
    """Until every worker process is in its read loop: one of its Redis connections has XREADGROUP as its
    last command (``CLIENT LIST``, matched to the process by the connection's local port). Start-up is over
    then. (A consumer shows in ``XINFO CONSUMERS`` only once it was given an entry on Redis 7.0.) Without
    ``/proc`` or ``CLIENT LIST``: a fixed 5 s."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if any(p.poll() is not None for p in procs):
            raise RuntimeError("a worker process exited while starting")
        try:
            reading = {int(str(c["addr"]).rsplit(":", 1)[1]) for c in _client_list(backend.redis)
                       if c.get("cmd") == "xreadgroup"}
            if all(_local_ports(p.pid) & reading for p in procs):
                return
        except (OSError, redis.ResponseError):
            time.sleep(5)
            return
        time.sleep(0.05)
    raise RuntimeError(f"the workers did not reach their read loop within {timeout_s:g}s")


def await_shared(ports: Sequence[int], partitions: int, timeout_s: float = 30.0) -> None:
    """Until the workers have split the partitions among them (each reads its share, together all of them),
    as they do within a second of seeing each other: released before, every worker would read every partition
    for that second and they would race on the same matches, which is not the steady state being measured.
    Without metrics: at once."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        shares = [scrape([port]).get("airship_worker_partitions") for port in ports]
        if any(s is None for s in shares):
            return
        if sum(cast(float, s) for s in shares) == partitions and all(cast(float, s) > 0 for s in shares):
            return
        time.sleep(0.1)
    raise RuntimeError(f"the workers did not split the partitions within {timeout_s:g}s")


def _split(total: int, parts: int) -> list[int]:
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


# -- load-generator processes ----------------------------------------------------------------------
class Generators:
    """Load-generator processes, each running ``target(conn, settings, job)``; messages over pipes."""

    def __init__(self, target: Callable[[Connection, Settings, dict[str, Any]], None], settings: Settings,
                 jobs: list[dict[str, Any]]) -> None:
        methods = multiprocessing.get_all_start_methods()
        ctx: Any = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
        self.procs: list[Any] = []
        self.conns: list[Connection] = []
        for job in jobs:
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=target, args=(child, settings, job), daemon=True)
            proc.start()
            child.close()
            self.procs.append(proc)
            self.conns.append(parent)

    def receive(self, timeout_s: float) -> list[dict[str, Any]]:
        """The next message of every generator; a generator's error (or its death) raises."""
        out = []
        deadline = time.monotonic() + timeout_s
        for conn in self.conns:
            if not conn.poll(max(0.0, deadline - time.monotonic())):
                raise RuntimeError(f"a load generator said nothing within {timeout_s:g}s")
            try:
                message = conn.recv()
            except EOFError:
                raise RuntimeError("a load generator exited") from None
            if "error" in message:
                raise RuntimeError(f"a load generator failed: {message['error']}")
            out.append(message)
        return out

    def send(self, messages: Sequence[Any]) -> None:
        for conn, message in zip(self.conns, messages, strict=True):
            conn.send(message)

    def close(self) -> None:
        for conn in self.conns:
            with contextlib.suppress(OSError, ValueError):  # a prefill generator has gone already
                conn.send("exit")
        for proc in self.procs:
            proc.join(timeout=10)
            if proc.is_alive():
                proc.terminate()
                proc.join()
        for conn in self.conns:
            conn.close()


# -- drain ---------------------------------------------------------------------------------------------
@dataclass
class Drain:
    game: str
    workers: int
    matches: int
    commands: int
    events: int  # appended by the commands (the matches' setup events excluded)
    seconds: float
    complete: bool
    prefill_s: float
    worker_cpu_s: float | None
    redis_cpu_s: float
    metrics: dict[str, float] = field(default_factory=dict)  # the workers' counters over the drain
    seconds_99: float | None = None  # until 99 % of the results were in (None: results streams trimmed)

    @property
    def per_s(self) -> float:
        return self.commands / self.seconds if self.seconds > 0 else 0.0

    @property
    def per_s_99(self) -> float | None:
        return 0.99 * self.commands / self.seconds_99 if self.seconds_99 else None

    def as_dict(self) -> dict[str, Any]:
        n = max(1, self.commands)
        m = self.metrics
        appends = m.get("airship_append_seconds_count", 0.0)
        return {"game": self.game, "workers": self.workers, "matches": self.matches, "commands": self.commands,
                "events": self.events, "events_per_command": round(self.events / n, 3),
                "seconds": round(self.seconds, 4), "commands_per_s": round(self.per_s, 1),
                "us_per_command": round(1e6 / self.per_s, 1) if self.per_s else None,
                "seconds_to_99pct": round(self.seconds_99, 4) if self.seconds_99 else None,
                "commands_per_s_to_99pct": round(self.per_s_99, 1) if self.per_s_99 else None,
                "worker_cpu_ms_per_command": (round(1000 * self.worker_cpu_s / n, 4)
                                              if self.worker_cpu_s is not None else None),
                "redis_cpu_ms_per_command": round(1000 * self.redis_cpu_s / n, 4),
                # from the workers' metrics: append round trips (a batch's chains in one, and each append of
                # the one-at-a-time path), appends refused for a stale version, and the time in
                # airship_decide_seconds per command (the one-at-a-time path counts its state load there)
                "appends": int(appends) if m else None,
                "commands_per_append": round(n / appends, 1) if appends else None,
                "append_ms_mean": (round(1000 * m.get("airship_append_seconds_sum", 0.0) / appends, 3)
                                   if appends else None),
                "conflicts": int(m.get("airship_version_conflicts_total", 0.0)) if m else None,
                "decide_us_per_command": round(1e6 * m.get("airship_decide_seconds_sum", 0.0) / n, 2) if m else None,
                "prefill_s": round(self.prefill_s, 3), "complete": self.complete}


def _prefix(settings: Settings, what: str) -> Settings:
    return settings.with_(key_prefix=f"{settings.key_prefix}-bench-{what}-{uuid.uuid4().hex[:6]}")


def drain(settings: Settings, game: str, workers: int, commands: int, matches: int, generators: int) -> Drain:
    """Prefill the queue with the workers stopped, release them, time them until it is empty. ``commands``
    tally commands over ``matches`` matches; for a real game, whole random matches until there are at least
    ``commands`` commands and ``matches`` matches."""
    run = _prefix(settings, "drain")
    backend = RedisBackend(run)  # creates the consumer groups
    ports = [free_port() for _ in range(workers)]
    procs = start_services(run, workers, projectors=0, metrics_ports=ports)
    gens: Generators | None = None
    try:
        generators = max(1, min(generators, matches))
        shares = zip(_split(matches, generators), _split(commands, generators), strict=True)
        if game == "tally":
            jobs = [{"game": game, "matches": m, "commands": c, "tag": f"d{g}"} for g, (m, c) in enumerate(shares)]
        else:
            seats = default_seats(get_game(game))
            jobs = [{"game": game, "seats": seats, "matches": m, "commands": c, "tag": f"d{g}",
                     "seed": SEED * 1000 + g} for g, (m, c) in enumerate(shares)]
        gens = Generators(loadgen.prefill, run, jobs)
        await_reading(backend, procs)
        await_shared(ports, run.partitions)
        before = scrape(ports)
        for proc in procs:
            proc.send_signal(signal.SIGSTOP)
        readies = gens.receive(600)
        match_ids = [mid for ready in readies for mid in ready["matches"]]
        versions = [v for ready in readies for v in ready["versions"]]
        total = sum(int(ready["commands"]) for ready in readies)
        events = sum(int(ready["events"]) for ready in readies)
        gens.send(["go"] * len(readies))
        published = gens.receive(600)
        prefill_s = max(float(p["seconds"]) for p in published)
        queued = _queue_left(backend)
        if queued != total:
            raise RuntimeError(f"{total} commands published but {queued} queued")
        _progress(f"drain {game}, {workers} worker{'s' if workers > 1 else ''}: {total} commands of "
                  f"{len(match_ids)} matches queued in {prefill_s:.2f}s; workers released")
        cpu_before, redis_before = _cpu_of(procs), _redis_cpu(backend.redis)
        started_ms = _redis_now_ms(backend.redis)
        for proc in procs:
            proc.send_signal(signal.SIGCONT)
        deadline = time.monotonic() + 60 + total / 200
        while _queue_left(backend) > 0:
            if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
                break
            time.sleep(0.05)
        cpu_after, redis_after = _cpu_of(procs), _redis_cpu(backend.redis)
        after = scrape(ports)
        store = backend.store
        last_ms = max(id_ms(store.results_end(mid)) for mid in match_ids)
        stamps = sorted(id_ms(i) for mid in match_ids for i, _ in store.read_results(mid, "0", 0))
        seconds_99 = None
        if len(stamps) >= total:  # every result still in the streams (they are trimmed to ~results_maxlen)
            seconds_99 = max(0.001, (stamps[math.ceil(0.99 * total) - 1] - started_ms) / 1000)
        complete = all(store.version(mid) == v for mid, v in zip(match_ids, versions, strict=True))
        worker_cpu = cpu_after - cpu_before if cpu_after is not None and cpu_before is not None else None
        counters = {k: v - before.get(k, 0.0) for k, v in after.items()} if before and after else {}
        row = Drain(game, workers, len(match_ids), total, events, max(0.001, (last_ms - started_ms) / 1000),
                    complete, prefill_s, worker_cpu, redis_after - redis_before, counters, seconds_99)
        _progress(f"drain {game}, {workers} worker{'s' if workers > 1 else ''}: {row.per_s:,.0f} commands/s"
                  + ("" if complete else " (INCOMPLETE: not every command was accepted)"))
        return row
    finally:
        stop_services(procs)
        if gens is not None:
            gens.close()
        delete_prefix(backend.redis, run.key_prefix)
        backend.close()


# -- open loop -----------------------------------------------------------------------------------------
@dataclass
class OpenRun:
    fraction: float | None
    offered_per_s: float
    seconds: float
    histogram: Histogram
    sent: int
    achieved_per_s: float
    send_lag_s: float
    statuses: Counter[str] = field(default_factory=Counter)
    cpu_s: dict[str, float | None] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    metrics: dict[str, float] = field(default_factory=dict)  # the workers' counters over the phase

    def ms(self, q: float) -> float:
        return self.histogram.value_at(q) / 1000

    def cores_busy(self) -> float | None:
        """The CPU time of the workers, Redis and the load generators over the phase, in cores: how much of the
        machine (``os.cpu_count()``) the measured run kept busy."""
        if any(v is None for v in self.cpu_s.values()) or not self.cpu_s:
            return None
        return sum(v for v in self.cpu_s.values() if v is not None) / self.seconds

    def as_dict(self) -> dict[str, Any]:
        n = max(1, self.histogram.count)
        busy = self.cores_busy()
        appends = self.metrics.get("airship_append_seconds_count", 0.0)
        return {"fraction": self.fraction, "offered_per_s": round(self.offered_per_s, 1), "seconds": self.seconds,
                "commands": self.sent, "results": self.histogram.count, "missing": self.sent - self.histogram.count,
                "accepted": self.statuses.get("accepted", 0), "achieved_per_s": round(self.achieved_per_s, 1),
                "p50_ms": round(self.ms(0.5), 3), "p90_ms": round(self.ms(0.9), 3), "p99_ms": round(self.ms(0.99), 3),
                "p99_9_ms": round(self.ms(0.999), 3), "max_ms": round(self.histogram.max / 1000, 3),
                "mean_ms": round(self.histogram.mean / 1000, 3), "send_lag_max_ms": round(1000 * self.send_lag_s, 3),
                "cpu_ms_per_command": {k: round(1000 * v / n, 4) if v is not None else None
                                       for k, v in self.cpu_s.items()},
                "cores_busy": round(busy, 2) if busy is not None else None, "cores": os.cpu_count(),
                "commands_per_append": round(n / appends, 1) if appends else None,
                "conflicts": int(self.metrics.get("airship_version_conflicts_total", 0.0)) if self.metrics else None,
                "errors": self.errors[:5]}


def open_loop(settings: Settings, workers: int, matches: int, generators: int, rates: Sequence[float],
              fractions: Sequence[float | None], seconds: float) -> list[OpenRun]:
    """One phase per rate, on the same workers and matches (warmed up once, before the first)."""
    run = _prefix(settings, "open")
    backend = RedisBackend(run)
    ports = [free_port() for _ in range(workers)]
    procs = start_services(run, workers, projectors=0, metrics_ports=ports)
    gens: Generators | None = None
    generators = max(1, min(generators, matches))
    out = []
    try:
        await_reading(backend, procs)
        gens = Generators(loadgen.open_loop, run,
                          [{"matches": m, "tag": f"w{g}"} for g, m in enumerate(_split(matches, generators))])
        gens.receive(300)
        for k, (rate, fraction) in enumerate(zip(rates, fractions, strict=True)):
            per_gen = rate / generators
            start = time.monotonic() + 0.5 + per_gen * seconds * 2e-5  # time to pack the envelopes
            cpu_before, redis_before, before = _cpu_of(procs), _redis_cpu(backend.redis), scrape(ports)
            gens.send([{"rate": per_gen, "seconds": seconds, "start": start, "offset": g / generators,
                        "tag": f"o{k}g{g}"} for g in range(generators)])
            reports = gens.receive(seconds + 120)
            cpu_after, redis_after, after = _cpu_of(procs), _redis_cpu(backend.redis), scrape(ports)
            histogram = Histogram()
            statuses: Counter[str] = Counter()
            for report in reports:
                histogram.merge(Histogram.from_dict(report["histogram"]))
                statuses.update(report["statuses"])
            last = max(float(r["last_arrival"]) for r in reports)
            cpu: dict[str, float | None] = {
                "workers": cpu_after - cpu_before if cpu_after is not None and cpu_before is not None else None,
                "redis": redis_after - redis_before, "load": sum(float(r["cpu_s"]) for r in reports)}
            row = OpenRun(fraction, rate, seconds, histogram, sum(int(r["sent"]) for r in reports),
                          histogram.count / (last - start) if last > start else 0.0,
                          max(float(r["send_lag_s"]) for r in reports), statuses, cpu,
                          [e for r in reports for e in r["errors"]],
                          {k: v - before.get(k, 0.0) for k, v in after.items()} if before and after else {})
            out.append(row)
            _progress(f"open loop at {rate:,.0f}/s: {histogram.count}/{row.sent} results, p50 {row.ms(0.5):.2f} ms, "
                      f"p99 {row.ms(0.99):.2f} ms, p99.9 {row.ms(0.999):.2f} ms")
            deadline = time.monotonic() + 30
            while _queue_left(backend) > 0 and time.monotonic() < deadline:
                time.sleep(0.05)
        return out
    finally:
        if gens is not None:
            gens.close()
        stop_services(procs)
        delete_prefix(backend.redis, run.key_prefix)
        backend.close()


# -- redis-benchmark -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Xadd:
    clients: int
    pipeline: int
    requests: int
    per_s: float
    p50_ms: float
    p99_ms: float
    max_ms: float

    @property
    def label(self) -> str:
        return f"XADD -c {self.clients}" + (f" -P {self.pipeline}" if self.pipeline > 1 else "")

    def as_dict(self) -> dict[str, Any]:
        return {"clients": self.clients, "pipeline": self.pipeline, "requests": self.requests,
                "requests_per_s": round(self.per_s, 1), "p50_ms": self.p50_ms, "p99_ms": self.p99_ms,
                "max_ms": self.max_ms}


def redis_benchmark_xadd(settings: Settings, requests: int, clients: int = 1, pipeline: int = 1) -> Xadd | None:
    """Plain XADD of a 100-byte field through ``redis-benchmark`` on the same server (None when it is not
    installed). ``pipeline``: requests each client keeps in flight (``-P``)."""
    exe = shutil.which("redis-benchmark")
    if exe is None:
        return None
    # redis-benchmark 7.0 aborts ("All clients disconnected") now and then when the requests are not a
    # multiple of the pipeline depth: round them up.
    requests = -(-requests // pipeline) * pipeline
    url = urlparse(settings.redis_url)
    key = f"{settings.key_prefix}:bench-xadd-{uuid.uuid4().hex[:6]}"
    cmd = [exe, "-h", url.hostname or "127.0.0.1", "-p", str(url.port or 6379), "-n", str(requests),
           "-c", str(clients), "-P", str(pipeline), "--csv", "--dbnum", (url.path or "/0").lstrip("/") or "0"]
    if url.password:
        cmd += ["-a", url.password]
    # It also prints nothing now and then on a short run (a few hundred requests): try again, up to three times.
    for _ in range(3):
        try:
            out = subprocess.run([*cmd, "XADD", key, "MAXLEN", "~", "10000", "*", "e", "x" * 100],
                                 capture_output=True, text=True, timeout=300, check=True).stdout
        finally:
            connect(settings.redis_url).delete(key)
        rows = [row for row in csv.DictReader(io.StringIO(out)) if float(row.get("rps") or 0) > 0]
        if rows:
            row = rows[-1]
            return Xadd(clients, pipeline, requests, float(row["rps"]), float(row["p50_latency_ms"]),
                        float(row["p99_latency_ms"]), float(row["max_latency_ms"]))
    return None


# -- the bench -------------------------------------------------------------------------------------------
def parse_rates(text: str) -> list[float]:
    """``--rates``: comma-separated; a value up to 1 is a fraction of the drain rate, above 1 commands/s."""
    rates = [float(x) for x in text.split(",") if x.strip()]
    if any(r <= 0 for r in rates):
        raise ValueError("rates must be positive")
    return rates


def _ratio(a: float | None, b: float | None) -> float | None:
    """a / b to 4 significant digits (a tiny ratio is not rounded to 0)."""
    return float(f"{a / b:.4g}") if a and b else None


def run_pipeline_bench(settings: Settings, worker_counts: list[int], matches: int = 32, commands: int = 20_000,
                       xadd_requests: int = 100_000, as_json: bool = False, *, generators: int = 2,
                       games: list[str] | None = None, game_commands: int = 6000, rates: str = DEFAULT_RATES,
                       open_workers: int = 1, seconds: float = 5.0, cluster: bool = False) -> int:
    register_tally()
    games = builtin_games() if games is None else games
    try:
        wanted = parse_rates(rates)
    except ValueError as e:
        print(f"airship: --rates: {e}", file=sys.stderr)
        return 2
    unknown = [g for g in games if g == "tally" or g not in GAMES]
    if unknown:
        print(f"airship: --games: unknown game {unknown[0]!r}; built-in: {', '.join(builtin_games())}",
              file=sys.stderr)
        return 2
    if not worker_counts or min([matches, commands, generators, open_workers, *worker_counts]) < 1 or seconds <= 0:
        print("airship: --matches, --commands, --generators, --open-workers and --workers must be at least 1, "
              "--seconds positive", file=sys.stderr)
        return 2

    drains = [drain(settings, "tally", w, commands, matches, generators) for w in worker_counts]
    by_workers = {d.workers: d for d in drains}
    tally_1 = by_workers.get(1)
    game_rows = [drain(settings, game, 1, game_commands, matches, generators) for game in games]
    base = by_workers.get(open_workers) or max(drains, key=lambda d: d.per_s, default=None)
    base_rate = base.per_s if base else 0.0
    absolute = [r * base_rate if r <= 1 else r for r in wanted]
    fractions: list[float | None] = [r if r <= 1 else None for r in wanted]
    opens = open_loop(settings, open_workers, matches, generators, absolute, fractions, seconds) if wanted else []
    single = redis_benchmark_xadd(settings, xadd_requests, 1, 1)
    piped = redis_benchmark_xadd(settings, xadd_requests, 1, XADD_PIPELINE) if single else None
    on_cluster: dict[str, Any] | None = None
    if cluster:
        from services.bench.cluster import cluster_drains

        on_cluster = cluster_drains(settings, worker_counts, commands, matches, generators)

    best = max((d.per_s for d in drains), default=0.0)
    one = tally_1.per_s if tally_1 else None
    single_rate, piped_rate = (single.per_s if single else None), (piped.per_s if piped else None)
    ratios = {"drain_1_worker_to_single_client_xadd": _ratio(one, single_rate),
              "drain_1_worker_to_pipelined_xadd": _ratio(one, piped_rate),
              "best_drain_to_single_client_xadd": _ratio(best, single_rate),
              "best_drain_to_pipelined_xadd": _ratio(best, piped_rate)}
    complete = all(d.complete for d in drains + game_rows) and all(o.sent == o.histogram.count for o in opens)
    game_dicts = []
    for row in game_rows:
        d = row.as_dict()
        if one and row.per_s:
            d["us_per_command_beyond_tally"] = round(1e6 / row.per_s - 1e6 / one, 1)
        game_dicts.append(d)
    if as_json:
        print(json.dumps({
            "bench": "pipeline", "partitions": settings.partitions, "generators": generators, "matches": matches,
            "commands": commands, "game_commands": game_commands,
            "drain": [d.as_dict() for d in drains], "best_commands_per_s": round(best, 1),
            "games": game_dicts,
            "open_loop": {"workers": open_workers, "matches": matches, "seconds_per_rate": seconds,
                          "base_commands_per_s": round(base_rate, 1), "runs": [o.as_dict() for o in opens]},
            "xadd": {"single_client": single.as_dict() if single else None,
                     "pipelined": piped.as_dict() if piped else None},
            "ratios": ratios, "complete": complete}
            | ({"cluster": _cluster_json(drains, on_cluster)} if on_cluster else {})))
        return 0 if complete else 1
    _table(settings, drains, game_rows, game_dicts, opens, open_workers, matches, generators, seconds, base_rate,
           [x for x in (single, piped) if x], ratios)
    if on_cluster:
        _cluster_table(drains, on_cluster)
    return 0 if complete else 1


def _cluster_json(single: list[Drain], on_cluster: dict[str, Any]) -> dict[str, Any]:
    by_workers = {d.workers: d for d in single}
    rows = []
    for d in on_cluster["drains"]:
        row = d.as_dict()
        base = by_workers.get(d.workers)
        row["to_single_redis"] = _ratio(d.per_s, base.per_s if base else None)
        row["per_worker"] = round(d.per_s / d.workers, 1)
        rows.append(row)
    durable = on_cluster["durable"]
    plain = next((d for d in on_cluster["drains"] if d.workers == 1), None)
    return {"masters": on_cluster["masters"], "replicas_per_master": on_cluster["replicas_per_master"],
            "drain": rows, "durable_1_worker": durable.as_dict(),
            "durable_to_plain_1_worker": _ratio(durable.per_s, plain.per_s if plain else None)}


def _cluster_table(single: list[Drain], on_cluster: dict[str, Any]) -> None:
    out = _cluster_json(single, on_cluster)
    print("\nRedis Cluster (3 masters, 1 replica each, on this host), tally drain beside the single Redis:")
    print(f"  {'workers':>7} {'commands/s':>11} {'per worker':>10} {'x single':>8} {'worker CPU ms/cmd':>17} "
          f"{'Redis CPU ms/cmd':>16}")
    for row in out["drain"]:
        print(f"  {row['workers']:>7} {row['commands_per_s']:>11,.0f} {row['per_worker']:>10,.0f} "
              f"{row['to_single_redis'] or 0:>8.2f} {row['worker_cpu_ms_per_command'] or 0:>17.4f} "
              f"{row['redis_cpu_ms_per_command']:>16.4f}")
    d = out["durable_1_worker"]
    print(f"  appends waiting for a replica (AIRSHIP_APPEND_REPLICAS=1), 1 worker: {d['commands_per_s']:,.0f} "
          f"commands/s ({out['durable_to_plain_1_worker']} x without)")


def _table(settings: Settings, drains: list[Drain], game_rows: list[Drain], game_dicts: list[dict[str, Any]],
           opens: list[OpenRun], open_workers: int, matches: int, generators: int, seconds: float,
           base_rate: float, xadds: list[Xadd], ratios: dict[str, float | None]) -> None:
    def num(value: Any, spec: str) -> str:
        return "-" if value is None else format(value, spec)

    print(f"pipeline bench: {settings.partitions} partitions, {generators} load-generator processes, no projector")
    print("drain: queue prefilled with the workers stopped after start-up; timed from their release (SIGCONT) "
          "to the last result (to 99%/s: the rate until 99% of the results were in)")
    print(f"{'':16} {'workers':>7} {'matches':>7} {'commands':>9} {'ev/cmd':>6} {'seconds':>8} {'commands/s':>10} "
          f"{'to 99%/s':>9} {'us/cmd':>7} {'cmd/append':>10} {'conflicts':>9} {'decide us':>9}   "
          f"CPU ms/cmd: {'workers':>7} {'redis':>6}")
    for row, d in [(r, r.as_dict()) for r in drains] + list(zip(game_rows, game_dicts, strict=True)):
        print(f"{row.game:16} {row.workers:>7} {row.matches:>7} {row.commands:>9,} {d['events_per_command']:>6.2f} "
              f"{row.seconds:>8.3f} {row.per_s:>10,.0f} {num(d['commands_per_s_to_99pct'], ',.0f'):>9} "
              f"{num(d['us_per_command'], '.1f'):>7} "
              f"{num(d['commands_per_append'], '.1f'):>10} {num(d['conflicts'], ','):>9} "
              f"{num(d['decide_us_per_command'], '.1f'):>9}   {'':11} {num(d['worker_cpu_ms_per_command'], '.3f'):>7} "
              f"{d['redis_cpu_ms_per_command']:>6.3f}" + ("" if row.complete else "   INCOMPLETE"))
    for d in game_dicts:
        if "us_per_command_beyond_tally" in d:
            print(f"{d['game']}: {d['us_per_command_beyond_tally']:+.1f} us per command beyond tally's (1 worker)")
    if opens:
        print(f"open loop: tally, {open_workers} worker{'s' if open_workers > 1 else ''}, {matches} matches, "
              f"{seconds:g} s per rate, base {base_rate:,.0f}/s; latency = scheduled send to result read")
        print(f"{'rate':14} {'offered/s':>9} {'achieved/s':>10} {'results':>8} {'p50 ms':>8} {'p99 ms':>8} "
              f"{'p99.9 ms':>9} {'max ms':>8} {'send lag ms':>11} {'cmd/append':>10}   CPU ms/cmd: {'workers':>7} "
              f"{'redis':>6} {'load':>6}   cores busy")
        for o in opens:
            label = f"{o.fraction:.0%} of drain" if o.fraction is not None else "fixed"
            od = o.as_dict()
            cpu = od["cpu_ms_per_command"]
            print(f"{label:14} {o.offered_per_s:>9,.0f} {o.achieved_per_s:>10,.0f} {o.histogram.count:>8} "
                  f"{o.ms(0.5):>8.2f} {o.ms(0.99):>8.2f} {o.ms(0.999):>9.2f} {o.histogram.max / 1000:>8.2f} "
                  f"{1000 * o.send_lag_s:>11.2f} {num(od['commands_per_append'], '.1f'):>10}   {'':11} "
                  f"{num(cpu['workers'], '.3f'):>7} "
                  f"{num(cpu['redis'], '.3f'):>6} {num(cpu['load'], '.3f'):>6}   "
                  f"{num(od['cores_busy'], '.2f')} of {od['cores']}"
                  + (f"   {o.sent - o.histogram.count} MISSING" if o.sent != o.histogram.count else ""))
    if not xadds:
        print("redis-benchmark: not installed (or no output); no XADD figure")
    for x in xadds:
        print(f"redis-benchmark {x.label:14} {x.per_s:>11,.0f} requests/s  p50 {x.p50_ms:.3f} ms  "
              f"p99 {x.p99_ms:.3f} ms")
    for name, value in ratios.items():
        if value is not None:
            print(f"{name.replace('_', ' ')}: {value:.3f}")
