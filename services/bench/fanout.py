"""``airship bench fanout``: one gateway process holding many spectator WebSockets over many matches, what it
costs (Redis connections, memory per idle socket, CPU) and how fast a move reaches every watcher.

On a fresh key prefix (deleted afterwards) the bench starts a worker, a projector and a gateway (rate limits
lifted, its file-descriptor limit raised to fit the sockets), all with the ``tally`` game, and sets up
``--matches`` one-seat matches straight in Redis. ``--processes`` watcher processes
(:mod:`services.bench.fanout_watch`, never the processes measured, each connecting from its own loopback
address) open ``--sockets`` WebSockets in all; socket *j* subscribes to the public views of ``--per-socket``
matches from match *j* on, round the list, so each match has sockets x per-socket / matches watchers. Once every
subscription has shown its first view the gateway's RSS, Redis connections and CPU are read (memory per idle
socket = the RSS added since before the sockets / sockets). Then this process moves random matches over HTTP
at ``--rate`` commands/s for ``--duration`` s (open loop) and the watchers note when each new view version
reached each socket: **delivery** is from just before the command was sent until its view (or a newer one)
reached the *last* of the match's watchers, so it includes the worker and the projector. A version that never
reached a watcher counts as missed.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import resource
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from services.bench import TALLY_MODULES, register_tally
from services.bench.gateway.run import free_port
from services.bench.pipeline import cpu_seconds, start_services, stop_services
from services.gateway.launch import wait_ready
from services.pipeline import lobby
from services.pipeline.redis_backend import RedisBackend, connect, delete_prefix
from services.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
LIFTED = "1000000000"
SETTLE_S = 3.0  # after the last move, how long the watchers may still take
FD_RESERVE = 400  # descriptors a gateway needs besides its sockets: Redis pools, the listener, HTTP moves, logs


@dataclass(frozen=True, slots=True)
class Plan:
    sockets: int = 20_000
    matches: int = 10_000
    per_socket: int = 1
    rate: float = 200.0
    duration_s: float = 20.0
    processes: int = 4


def _progress(text: str) -> None:
    print(f"bench fanout: {text}", file=sys.stderr, flush=True)


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def redis_connections(pid: int, redis_port: int) -> int:
    """Established TCP connections of process ``pid`` to ``redis_port`` (from /proc)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            cols = line.split()
            if int(cols[2].rsplit(":", 1)[1], 16) == redis_port and cols[3] == "01" and cols[9] in inodes:
                count += 1
    return count


def _raise_fd_limit(n: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = max(soft, n)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, max(hard, want)))  # root may raise the hard limit
    except (ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def attainable_fd_limit() -> int:
    """The most file descriptors a process started here can have: the hard limit, unless it may be raised
    (root with CAP_SYS_RESOURCE; a container often drops it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        return 1 << 20
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard + 1))
    except (ValueError, OSError):
        return hard
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return int(Path("/proc/sys/fs/nr_open").read_text()) if Path("/proc/sys/fs/nr_open").exists() else hard


def check_fd_room(sockets: int) -> None:
    """Fail at once, saying why, when one gateway process here cannot hold ``sockets`` sockets besides its
    Redis connections and the rest (FD_RESERVE): it would refuse the surplus and the watchers would wait."""
    limit = attainable_fd_limit()
    if sockets + FD_RESERVE > limit:
        raise SystemExit(f"bench fanout: a process here may have at most {limit} file descriptors (RLIMIT_NOFILE's "
                         f"hard limit, not raisable), so one gateway holds at most {limit - FD_RESERVE} sockets "
                         f"besides its Redis connections; asked {sockets}")


def start_gateway(settings: Settings, port: int, sockets: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "AIRSHIP_GAME_MODULES": TALLY_MODULES, "AIRSHIP_BLOCK_MS": "200",
           "AIRSHIP_GATEWAY_TOKEN_RPS": LIFTED, "AIRSHIP_GATEWAY_ADDR_RPS": LIFTED,
           "AIRSHIP_GATEWAY_ADDR_CREATES": LIFTED, "AIRSHIP_GATEWAY_ADDR_CREATES_PER_H": LIFTED,
           "AIRSHIP_GATEWAY_SOCKET_RPS": LIFTED, "AIRSHIP_GATEWAY_MAX_SOCKETS": str(sockets + 100),
           "AIRSHIP_GATEWAY_ADDR_CONNECTIONS": str(sockets + 100), "AIRSHIP_GATEWAY_ADDR_SOCKETS": str(sockets + 100),
           # all the sockets, not the default share of the descriptors (which keeps a tenth spare)
           "AIRSHIP_GATEWAY_MAX_CONNECTIONS": str(sockets + 100)}
    cmd = [sys.executable, "-m", "services.cli", "--log-level", "warning", "gateway", "--redis", settings.redis_url,
           "--prefix", settings.key_prefix, "--partitions", str(settings.partitions), "--port", str(port)]
    return subprocess.Popen(cmd, env=env, cwd=ROOT, preexec_fn=lambda: _raise_fd_limit(sockets + 4096))


async def make_matches(settings: Settings, n: int) -> list[tuple[str, str]]:
    """``n`` one-seat tally matches set up and joined by the embedded lobby (a worker would do the same for the
    gateway's ``match.create`` and ``match.join``): (match id, seat 0's token)."""
    register_tally()

    def made() -> list[tuple[str, str]]:
        backend = RedisBackend(settings)
        try:
            out = []
            for _ in range(n):
                meta = lobby.create_match(backend.store, "tally", 1, {})
                out.append((meta.match_id, lobby.join(backend.store, meta.match_id, 0)[1]))
            return out
        finally:
            backend.close()

    return await asyncio.to_thread(made)


async def _spawn_watchers(plan: Plan, ws_url: str, match_ids: list[str]) -> list[asyncio.subprocess.Process]:
    shares = [[match_ids[(j * plan.per_socket + q) % len(match_ids)] for q in range(plan.per_socket)]
              for j in range(plan.sockets)]
    procs = []
    for p in range(plan.processes):
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "services.bench.fanout_watch", stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, cwd=ROOT, env=os.environ.copy(), limit=1 << 30,
            preexec_fn=lambda: _raise_fd_limit(plan.sockets // plan.processes + 1024))
        assert proc.stdin is not None
        job = {"ws_url": ws_url, "source": f"127.0.1.{p + 1}", "sockets": shares[p::plan.processes]}
        proc.stdin.write((json.dumps(job) + "\n").encode())
        await proc.stdin.drain()
        procs.append(proc)
    return procs


async def _line(proc: asyncio.subprocess.Process, timeout_s: float) -> dict[str, Any]:
    assert proc.stdout is not None
    raw = await asyncio.wait_for(proc.stdout.readline(), timeout_s)
    if not raw:
        raise RuntimeError("a watcher process ended early")
    return dict(json.loads(raw))


async def _move(url: str, matches: list[tuple[str, str]], plan: Plan) -> tuple[dict[tuple[str, int], float], int]:
    """Open loop: a command to a random match every 1/rate s; (match, version) -> when it was sent."""
    sent: dict[tuple[str, int], float] = {}
    failed = 0
    rng = random.Random(7)
    async with httpx.AsyncClient(base_url=url, timeout=30.0, limits=httpx.Limits(max_connections=64)) as http:
        async def one(i: int, match_id: str, token: str) -> None:
            nonlocal failed
            started = time.time()
            try:
                answer = await http.post(f"/matches/{match_id}/commands", headers={"Authorization": f"Bearer {token}"},
                                         json={"idempotency_key": f"f{i}", "type": "add", "body": {"n": 1}})
                body = answer.json()
                if answer.status_code == 200 and body["status"] == "accepted":
                    sent[(match_id, int(body["version"]))] = started
                    return
            except httpx.HTTPError:
                pass
            failed += 1

        tasks = []
        start = time.monotonic()
        total = int(plan.rate * plan.duration_s)
        for i in range(total):
            delay = start + i / plan.rate - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.create_task(one(i, *matches[rng.randrange(len(matches))])))
        await asyncio.gather(*tasks)
    return sent, failed


def delivery(sent: dict[tuple[str, int], float], seen: dict[str, list[float]], watchers: dict[str, int]
             ) -> tuple[list[float], int]:
    """Per command: ms from its send until its view (or a newer one) reached the last of the match's watchers;
    and how many (command, watcher) deliveries never came."""
    by_match: dict[str, list[tuple[int, list[float]]]] = {}
    for key, times in seen.items():
        seen_match, seen_version = key.split(" ")
        by_match.setdefault(seen_match, []).append((int(seen_version), times))
    for versions in by_match.values():
        versions.sort()
    latencies, missed = [], 0
    for (match_id, version), started in sent.items():
        later = [(v, t) for v, t in by_match.get(match_id, []) if v >= version]
        expected = watchers.get(match_id, 0)
        got = later[0][1] if later else []
        missed += max(0, expected - len(got))
        if got:
            latencies.append((max(got) - started) * 1000)
    return sorted(latencies), missed


def pct(values: list[float], q: float) -> float:
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


async def _run(settings: Settings, plan: Plan, url: str, gateway: subprocess.Popen[bytes],
               redis_port: int) -> dict[str, Any]:
    matches = await make_matches(settings, plan.matches)
    _progress(f"{len(matches)} matches set up")
    base_rss = rss_kb(gateway.pid)
    procs = await _spawn_watchers(plan, url.replace("http://", "ws://") + "/ws", [m for m, _ in matches])
    connect_started = time.monotonic()
    try:
        for proc in procs:
            await _line(proc, 900)
        connect_s = time.monotonic() - connect_started
        _progress(f"{plan.sockets} sockets subscribed in {connect_s:.1f} s")
        await asyncio.sleep(2)
        idle_rss = rss_kb(gateway.pid)
        idle_redis = redis_connections(gateway.pid, redis_port)
        cpu_before = cpu_seconds(gateway.pid) or 0.0
        moving = time.monotonic()
        sent, failed = await _move(url, matches, plan)
        moved_s = time.monotonic() - moving
        peak_redis = redis_connections(gateway.pid, redis_port)
        await asyncio.sleep(SETTLE_S)
        cpu = (cpu_seconds(gateway.pid) or 0.0) - cpu_before
        seen: dict[str, list[float]] = {}
        errors: list[str] = []
        closed = 0
        for proc in procs:
            assert proc.stdin is not None
            proc.stdin.write(b"stop\n")
            await proc.stdin.drain()
        for proc in procs:
            report = (await _line(proc, 300))["report"]
            for key, times in report["seen"].items():
                seen.setdefault(key, []).extend(times)
            errors += report["errors"]
            closed += report["closed"]
    finally:
        for proc in procs:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
    watchers: dict[str, int] = {}
    for j in range(plan.sockets):
        for q in range(plan.per_socket):
            match_id = matches[(j * plan.per_socket + q) % len(matches)][0]
            watchers[match_id] = watchers.get(match_id, 0) + 1
    latencies, missed = delivery(sent, seen, watchers)
    return {"sockets": plan.sockets, "matches": plan.matches, "per_socket": plan.per_socket,
            "rate_per_s": plan.rate, "achieved_per_s": round(len(sent) / moved_s, 1), "commands": len(sent),
            "failed_commands": failed, "connect_s": round(connect_s, 1),
            "redis_connections_idle": idle_redis, "redis_connections_after_moves": peak_redis,
            "rss_mb_before": round(base_rss / 1024, 1), "rss_mb_idle": round(idle_rss / 1024, 1),
            "kb_per_idle_socket": round((idle_rss - base_rss) / plan.sockets, 2),
            "gateway_cpu_s": round(cpu, 2), "gateway_cores_busy": round(cpu / (moved_s + SETTLE_S), 2),
            "delivery_ms": {"p50": round(pct(latencies, 0.5), 1), "p99": round(pct(latencies, 0.99), 1),
                            "max": round(latencies[-1], 1) if latencies else None},
            "missed_deliveries": missed, "sockets_closed": closed, "errors": errors[:5]}


def run_fanout_bench(settings: Settings, plan: Plan) -> dict[str, Any]:
    check_fd_room(plan.sockets)
    settings = settings.with_(key_prefix=f"{settings.key_prefix}-fanout-{uuid.uuid4().hex[:6]}")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    services = start_services(settings, workers=1)
    gateway = start_gateway(settings, port, plan.sockets)
    try:
        wait_ready(url, gateway)
        redis_port = int(connect(settings.redis_url).connection_pool.connection_kwargs.get("port", 6379))
        return asyncio.run(_run(settings, plan, url, gateway, redis_port))
    finally:
        stop_services([gateway, *services])
        delete_prefix(connect(settings.redis_url), settings.key_prefix)


def format_report(report: dict[str, Any]) -> str:
    d = report["delivery_ms"]
    return "\n".join([
        f"{report['sockets']:,} sockets watching {report['matches']:,} matches ({report['per_socket']} each), "
        f"subscribed in {report['connect_s']} s",
        f"gateway Redis connections: {report['redis_connections_idle']} idle, "
        f"{report['redis_connections_after_moves']} after the moves",
        f"gateway RSS: {report['rss_mb_before']} MB before the sockets, {report['rss_mb_idle']} MB with them idle "
        f"= {report['kb_per_idle_socket']} KB per idle socket",
        f"moves: {report['commands']:,} at {report['achieved_per_s']}/s (asked {report['rate_per_s']}/s), "
        f"{report['failed_commands']} failed; gateway CPU {report['gateway_cpu_s']} s "
        f"({report['gateway_cores_busy']} cores busy)",
        f"delivery (send -> last watcher has the view): p50 {d['p50']} ms, p99 {d['p99']} ms, max {d['max']} ms; "
        f"{report['missed_deliveries']} missed, {report['sockets_closed']} sockets closed",
    ])
