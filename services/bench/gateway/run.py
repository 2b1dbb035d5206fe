"""``airship bench gateway``: commands per second and command-to-result latency through the gateway's
WebSocket, beside the same load published straight to the command streams, in the same run.

On a fresh key prefix (deleted afterwards) the bench starts ``--workers`` ``airship worker`` processes, one
``airship projector`` and one gateway (``airship gateway``, its rate limits lifted through the environment;
the limiters still run, so their cost is measured), all with the ``tally`` game, whose rules cost nothing, so
what is measured is the pipeline and the door. Over HTTP it creates one one-seat ``tally`` match per client
and joins its seat. Then two runs of ``--commands`` commands each, by ``--clients`` clients spread over
``--processes`` load-generator processes (:mod:`services.bench.gateway.load`, never the processes measured); each
client drives its own match, one ``add`` at a time, after a short warm-up:

- ``direct``: the client XADDs the packed envelope to the command stream itself and waits on the match's
  results stream, as the trusted in-process client does (:meth:`services.pipeline.direct.DirectClient.call`);
- ``gateway``: the client holds a WebSocket subscribed with its seat token, sends ``command`` messages and
  waits for the ``result`` with the same ``cid`` (the ``view`` messages pushed meanwhile are read too).

Latency is from just before a command is sent to its result; throughput is every result of the run over
the time from the common start to the last result. The ratios compare the runs: gateway throughput /
direct throughput (goal at least 0.7) and the p50 latency the gateway adds (goal at most 1 ms). With many
clients the pipeline is saturated and latency is mostly queueing, so both paths are also run with one client
(``--one-client-commands``), where the added p50 is the gateway's own time. Each run also reports the CPU
time each kind of process spent per command (from ``/proc``; the load processes report their own), which
shows where the time goes.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import redis.exceptions

from services.bench import TALLY_MODULES
from services.bench.pipeline import cpu_seconds, start_services, stop_services
from services.gateway.launch import spawn_gateway, wait_ready
from services.pipeline.redis_backend import connect, delete_prefix
from services.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
WARMUP = 5  # commands per client before each run, not measured
GOAL_RATIO = 0.7
GOAL_ADDED_P50_MS = 1.0
LIFTED_RPS = "1000000000"  # the bench measures the gateway's work, not its rate limits
LIFTED_COUNT = "1000000"  # long-polls and sockets per address


@dataclass
class Run:
    name: str
    expected: int
    clients: int
    latencies_ms: list[float] = field(default_factory=list)
    statuses: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    cpu_s: dict[str, float] = field(default_factory=dict)  # process kind -> CPU seconds during the run

    @property
    def label(self) -> str:
        return f"{self.name}, {self.clients} client{'s' if self.clients > 1 else ''}"

    @property
    def complete(self) -> bool:
        return self.results == self.expected and self.statuses.get("accepted", 0) == self.expected

    def cpu_ms_per_command(self) -> dict[str, float]:
        return {kind: round(1000 * s / self.results, 3) if self.results else 0.0 for kind, s in self.cpu_s.items()}

    @property
    def results(self) -> int:
        return len(self.latencies_ms)

    @property
    def per_s(self) -> float:
        return self.results / self.seconds if self.seconds > 0 else 0.0

    def pct(self, q: float) -> float:
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"commands": self.expected, "results": self.results, "accepted": self.statuses.get("accepted", 0),
                "statuses": dict(self.statuses), "missing": self.expected - self.results,
                "seconds": round(self.seconds, 3), "commands_per_s": round(self.per_s, 1),
                "p50_ms": round(self.pct(0.5), 3), "p90_ms": round(self.pct(0.9), 3),
                "p99_ms": round(self.pct(0.99), 3), "max_ms": round(max(self.latencies_ms, default=0.0), 3),
                "mean_ms": round(sum(self.latencies_ms) / len(self.latencies_ms), 3) if self.latencies_ms else 0.0,
                "clients": self.clients, "cpu_ms_per_command": self.cpu_ms_per_command(), "errors": self.errors[:10]}


def local_redis_pid(url: str) -> int | None:
    """The pid of the Redis server at ``url`` if it runs on this host (its /proc entry is a redis-server), else
    None (another host, or another pid namespace)."""
    try:
        pid = int(connect(url).info("server")["process_id"])
        comm = Path(f"/proc/{pid}/comm").read_text()
    except (OSError, KeyError, ValueError, redis.exceptions.RedisError):
        return None
    return pid if comm.startswith("redis") else None


def cpu_by_kind(services: dict[str, list[int]]) -> dict[str, float]:
    out = {}
    for kind, pids in services.items():
        times = [cpu_seconds(pid) for pid in pids]
        if all(t is not None for t in times):
            out[kind] = sum(t for t in times if t is not None)
    return out


def _progress(text: str) -> None:
    print(f"bench gateway: {text}", file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _env() -> dict[str, str]:
    return {**os.environ, "AIRSHIP_GAME_MODULES": TALLY_MODULES, "AIRSHIP_BLOCK_MS": "200"}


def start_gateway(settings: Settings, port: int) -> subprocess.Popen[bytes]:
    # every client of the bench comes from one address, with a command waiting each (a long-poll)
    env = {**_env(), "AIRSHIP_GATEWAY_TOKEN_RPS": LIFTED_RPS, "AIRSHIP_GATEWAY_ADDR_RPS": LIFTED_RPS,
           "AIRSHIP_GATEWAY_SOCKET_RPS": LIFTED_RPS, "AIRSHIP_GATEWAY_ADDR_LONGPOLLS": LIFTED_COUNT,
           "AIRSHIP_GATEWAY_ADDR_SOCKETS": LIFTED_COUNT, "AIRSHIP_GATEWAY_ADDR_CREATES": LIFTED_COUNT,
           "AIRSHIP_GATEWAY_ADDR_CREATES_PER_H": LIFTED_RPS,
           "AIRSHIP_GATEWAY_ADDR_CONNECTIONS": LIFTED_RPS}  # every client is on 127.0.0.1: the process cap stays
    return spawn_gateway(settings, port, env)


async def make_seats(url: str, count: int) -> list[dict[str, Any]]:
    """One one-seat tally match per client, created and joined over HTTP, as a player would."""
    async with httpx.AsyncClient(base_url=url, timeout=30.0) as http:
        async def one() -> dict[str, Any]:
            created = await http.post("/matches", json={"game": "tally", "seats": 1})
            created.raise_for_status()
            match_id = created.json()["match_id"]
            joined = await http.post(f"/matches/{match_id}/seats", json={"seat": 0})
            joined.raise_for_status()
            seat = joined.json()
            return {"match_id": match_id, "seat": int(seat["seat"]), "token": seat["token"]}

        return list(await asyncio.gather(*(one() for _ in range(count))))


def split(total: int, parts: int) -> list[int]:
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


async def drive(name: str, job: dict[str, Any], seats: list[dict[str, Any]], commands: int,
                processes: int, timeout_s: float, services: dict[str, list[int]]) -> Run:
    """Spawn the load processes, warm them up, start them together and gather what they measured."""
    run = Run(name, commands, len(seats))
    per_client = split(commands, len(seats))
    bounds = [0]
    for n in split(len(seats), processes):
        bounds.append(bounds[-1] + n)
    procs = []
    for p in range(processes):
        lo, hi = bounds[p], bounds[p + 1]
        if lo == hi:
            continue
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "services.bench.gateway.load", stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, cwd=ROOT, env=os.environ.copy())
        assert proc.stdin is not None
        line = {**job, "tag": f"{name[0]}{uuid.uuid4().hex[:6]}p{p}", "seats": seats[lo:hi],
                "commands": per_client[lo:hi], "warmup": WARMUP}
        proc.stdin.write((json.dumps(line) + "\n").encode())
        await proc.stdin.drain()
        procs.append(proc)
    try:
        return await asyncio.wait_for(_gather(run, procs, services), timeout_s)
    finally:
        for proc in procs:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()


async def _gather(run: Run, procs: list[asyncio.subprocess.Process], services: dict[str, list[int]]) -> Run:
    async def message(proc: asyncio.subprocess.Process) -> dict[str, Any]:
        assert proc.stdout is not None
        line = await proc.stdout.readline()
        if not line:
            raise RuntimeError(f"a load process of the {run.name} run exited ({await proc.wait()})")
        return dict(json.loads(line))

    for ready in await asyncio.gather(*(message(p) for p in procs)):
        if ready.get("errors"):
            _progress(f"{run.name}: a load process had failures while warming up: {ready['errors'][:3]}")
    _progress(f"{run.label}: {len(procs)} load process{'es' if len(procs) > 1 else ''} warmed up; go")
    cpu_before = cpu_by_kind(services)
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write(b"go\n")
        await proc.stdin.drain()
    done = [0] * len(procs)
    reports: list[dict[str, Any]] = []
    shown = time.monotonic()

    async def follow(i: int, proc: asyncio.subprocess.Process) -> None:
        nonlocal shown
        while True:
            msg = await message(proc)
            if "report" in msg:
                reports.append(msg["report"])
                return
            done[i] = int(msg.get("done", done[i]))
            if time.monotonic() - shown > 2.0:
                shown = time.monotonic()
                _progress(f"{run.label}: {sum(done)}/{run.expected} commands")

    await asyncio.gather(*(follow(i, p) for i, p in enumerate(procs)))
    cpu_after = cpu_by_kind(services)
    run.cpu_s = {kind: cpu_after[kind] - cpu_before[kind] for kind in cpu_before if kind in cpu_after}
    run.cpu_s["load"] = sum(float(r.get("cpu_s", 0.0)) for r in reports)
    for proc in procs:
        await proc.wait()
    for report in reports:
        run.latencies_ms += report["latencies_ms"]
        run.statuses.update(report["statuses"])
        run.errors += report["errors"]
    run.seconds = max(r["finished"] for r in reports) - min(r["started"] for r in reports)
    return run


def await_projector(settings: Settings, match_ids: list[str], timeout_s: float = 60.0) -> None:
    """Let the projector catch up between the runs, so one run's views are not built during the next."""
    r = connect(settings.redis_url)
    keys = settings.keys
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        pipe = r.pipeline(transaction=False)
        for mid in match_ids:
            pipe.hget(keys.meta(mid), "version")
            pipe.hget(keys.view(mid, "public"), "v")
        replies = pipe.execute()
        if all(int(v or 0) >= int(m or 0) for m, v in zip(replies[::2], replies[1::2], strict=True)):
            return
        time.sleep(0.05)


def measure(settings: Settings, clients: int, processes: int, commands: int, workers: int,
            one_client_commands: int) -> dict[str, Run]:
    """The runs, keyed ``direct``, ``gateway`` (all clients) and ``direct-1``, ``gateway-1`` (one client), in
    the order they ran."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    procs = start_services(settings, workers)
    gateway = start_gateway(settings, port)
    services = {"gateway": [gateway.pid], "workers": [p.pid for p in procs[:workers]],
                "projector": [p.pid for p in procs[workers:]]}
    redis_pid = local_redis_pid(settings.redis_url)
    if redis_pid is not None:  # Redis's CPU per command too, when it runs on this host
        services["redis"] = [redis_pid]
    procs.append(gateway)
    try:
        wait_ready(url, gateway)
        _progress(f"services up ({workers} worker{'s' if workers > 1 else ''}, a projector, the gateway on port "
                  f"{port}, prefix {settings.key_prefix})")
        seats = asyncio.run(make_seats(url, clients + (1 if one_client_commands > 0 else 0)))
        _progress(f"{len(seats)} matches created and joined over HTTP")
        jobs: dict[str, dict[str, Any]] = {
            "direct": {"mode": "direct", "redis_url": settings.redis_url, "prefix": settings.key_prefix,
                       "partitions": settings.partitions},
            "gateway": {"mode": "gateway", "ws_url": url.replace("http://", "ws://") + "/ws"}}
        # The one-client runs use a match of their own, and each direct run comes before any gateway run: a
        # match the gateway watched keeps its hub (reading every result) for a while after its clients left.
        plan: list[tuple[str, list[dict[str, Any]], int, int]] = []
        for name in jobs:
            plan.append((name, seats[:clients], commands, processes))
            if one_client_commands > 0:
                plan.append((f"{name}-1", seats[clients:], one_client_commands, 1))
        runs: dict[str, Run] = {}
        for key, some, count, nprocs in plan:
            await_projector(settings, [s["match_id"] for s in seats])
            name = key.removesuffix("-1")
            row = runs[key] = asyncio.run(drive(name, jobs[name], some, count, nprocs, 120.0 + count * 0.05,
                                                services))
            _progress(f"{row.label}: {row.results}/{count} results in {row.seconds:.2f}s, {row.per_s:,.0f}/s, "
                      f"p50 {row.pct(0.5):.2f} ms, p99 {row.pct(0.99):.2f} ms")
        return runs
    finally:
        stop_services(procs)
        delete_prefix(connect(settings.redis_url), settings.key_prefix)


def run_gateway_bench(settings: Settings, clients: int = 32, processes: int = 4, commands: int = 2000,
                      workers: int = 1, as_json: bool = False, one_client_commands: int = 300) -> int:
    if min(clients, processes, commands, workers) < 1 or one_client_commands < 0:
        print("airship: --clients, --processes, --commands and --workers must be at least 1", file=sys.stderr)
        return 2
    processes = min(processes, clients)
    run_settings = settings.with_(key_prefix=f"{settings.key_prefix}-benchgw-{uuid.uuid4().hex[:6]}")
    runs = measure(run_settings, clients, processes, commands, workers, one_client_commands)
    direct, gateway = runs["direct"], runs["gateway"]
    ratio = gateway.per_s / direct.per_s if direct.per_s else 0.0
    added_p50 = gateway.pct(0.5) - direct.pct(0.5)
    added_p99 = gateway.pct(0.99) - direct.pct(0.99)
    single = (runs["gateway-1"].pct(0.5) - runs["direct-1"].pct(0.5)) if "gateway-1" in runs else None
    complete = all(r.complete for r in runs.values())
    if as_json:
        print(json.dumps({"bench": "gateway", "clients": clients, "processes": processes, "commands": commands,
                          "workers": workers, "partitions": settings.partitions, "warmup_per_client": WARMUP,
                          "runs": {"direct": direct.as_dict(), "gateway": gateway.as_dict()},
                          "one_client": {name[:-2]: r.as_dict() for name, r in runs.items() if name.endswith("-1")},
                          "throughput_ratio": round(ratio, 4), "added_p50_ms": round(added_p50, 3),
                          "added_p99_ms": round(added_p99, 3),
                          "added_p50_ms_one_client": round(single, 3) if single is not None else None,
                          "goals": {"throughput_ratio_min": GOAL_RATIO, "added_p50_ms_max": GOAL_ADDED_P50_MS,
                                    "met": ratio >= GOAL_RATIO and added_p50 <= GOAL_ADDED_P50_MS},
                          "complete": complete}))
        return 0 if complete else 1
    print(f"gateway bench: {clients} clients in {processes} load processes, {commands} commands per run, "
          f"{workers} worker{'s' if workers > 1 else ''}, {settings.partitions} partitions; "
          f"latency = command sent to its result")
    kinds = ["gateway", "workers", "projector", "load", "redis"]
    print(f"{'':22} {'commands/s':>10} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} {'max ms':>8} {'results':>8}   "
          f"CPU ms per command: {' '.join(f'{k:>9}' for k in kinds)}")
    for row in sorted(runs.values(), key=lambda r: -r.clients):
        cpu = row.cpu_ms_per_command()
        print(f"{row.label:22} {row.per_s:10,.0f} {row.pct(0.5):8.2f} {row.pct(0.9):8.2f} {row.pct(0.99):8.2f} "
              f"{max(row.latencies_ms, default=0):8.2f} {row.results:>8}   {'':20}"
              + " ".join(f"{cpu[k]:9.3f}" if k in cpu else f"{'-':>9}" for k in kinds))
    print(f"gateway / direct throughput: {ratio:.3f} (goal >= {GOAL_RATIO}: "
          f"{'met' if ratio >= GOAL_RATIO else 'missed'})")
    print(f"added p50 latency: {added_p50:+.2f} ms (goal <= {GOAL_ADDED_P50_MS:g} ms: "
          f"{'met' if added_p50 <= GOAL_ADDED_P50_MS else 'missed'}); added p99: {added_p99:+.2f} ms"
          + (f"; with one client: {single:+.2f} ms at p50" if single is not None else ""))
    for row in runs.values():
        if not row.complete:
            print(f"{row.label}: {row.expected - row.results} commands without a result, statuses "
                  f"{dict(row.statuses)}; first errors: {row.errors[:3]}")
    return 0 if complete else 1
