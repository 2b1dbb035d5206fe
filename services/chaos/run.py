"""``airship chaos``: proof that the guarantees hold under faults.

A fresh key prefix; ``workers`` worker processes and one projector process; ``matches`` bot matches of
every built-in game in turn (``concurrency`` at a time, a random bot thread per seat); a killer SIGKILLs
a random worker every ``kill_every_s`` (jittered) and starts a fresh one. With ``restart_redis`` the run
starts its own ``redis-server`` (AOF, ``appendfsync always``) in a temporary directory and kills and
restarts it every ``restart_every_s``; workers, the projector and the bots reconnect. At the end the
checks of :mod:`services.chaos.checks` run over everything that was sent, received and stored.
"""

from __future__ import annotations

import random
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from services.chaos.checks import Findings, check
from services.chaos.clients import Ledger, MatchRun, RecordingClient, play, retrying
from services.chaos.cluster_faults import ClusterFaults
from services.chaos.procs import Fleet, Killer
from services.chaos.redis_cluster import OwnCluster, environment
from services.chaos.redis_server import OwnRedis
from services.games import builtin_games, get_game
from services.pipeline.redis_backend import RedisBackend, delete_prefix
from services.pipeline.redis_conn import ADDRESSES_ENV
from services.settings import Settings


@dataclass
class ChaosOptions:
    redis_url: str | None = None
    matches: int = 200
    workers: int = 3
    concurrency: int = 8
    kill_every_s: float = 3.0
    restart_redis: bool = False
    restart_every_s: float = 20.0
    partitions: int = 4
    seed: int = 1
    timeout_s: float = 60.0
    games: list[str] | None = None
    keep_keys: bool = False
    cluster: bool = False  # a private Redis Cluster, with slots moved and masters killed (cluster_faults)
    append_replicas: int = 1  # with cluster: AIRSHIP_APPEND_REPLICAS of the workers
    deadline_s: float = 3600.0  # matches still running then are given up (and reported unfinished)


@dataclass
class ChaosReport:
    matches: int
    matches_finished: int
    games: list[str]
    commands_sent: int
    results_received: int
    accepted: int
    rejected: int
    worker_kills: int
    redis_restarts: int
    slots_moved: int
    failovers: int
    services_crashed: int
    seconds: float
    findings: Findings
    errors: list[str] = field(default_factory=list)
    process_kills: dict[str, int] = field(default_factory=dict)  # --stack: SIGKILLs by service (restarted each)

    @property
    def violations(self) -> int:
        f = self.findings
        return (f.lost_commands + f.applied_twice + f.version_gaps + f.views_differing + f.acked_lost
                + f.leaked_credentials + f.dead_letters + self.services_crashed
                + (self.matches - self.matches_finished))

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.update(findings=asdict(self.findings), violations=self.violations,
                   commands_per_s=round(self.results_received / self.seconds, 1) if self.seconds else 0.0)
        return out


class Restarter(threading.Thread):
    """Kills and restarts the run's own Redis every ``every_s``; no worker is replaced meanwhile."""

    def __init__(self, server: OwnRedis, fleet: Fleet, ledger: Ledger, every_s: float) -> None:
        super().__init__(name="chaos-redis-restarter", daemon=True)
        self.server, self.fleet, self.ledger, self.every_s = server, fleet, ledger, every_s
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.wait(self.every_s):
            with self.fleet.held():
                self.server.restart()
            with self.ledger.lock:
                self.ledger.epoch += 1

    def stop(self) -> None:
        self.stopping.set()
        self.join()


Progress = Callable[[int, int, float], None]


def run_chaos(opts: ChaosOptions, progress: Progress | None = None) -> ChaosReport:
    if opts.cluster:
        return _run_on_cluster(opts, progress)
    with tempfile.TemporaryDirectory(prefix="airship-chaos-") as tmp:
        server = None
        url = opts.redis_url
        if opts.restart_redis:
            (Path(tmp) / "redis").mkdir()
            server = OwnRedis(Path(tmp) / "redis")
            server.start()
            url = server.url
        try:
            return _run(opts, Settings.from_env(redis_url=url), Path(tmp), server, progress)
        finally:
            if server is not None:
                server.stop()


def _run_on_cluster(opts: ChaosOptions, progress: Progress | None) -> ChaosReport:
    """The run on its own cluster: every process (and this one) is told the nodes, so a client starts even
    while the URL's node is the master just killed."""
    with tempfile.TemporaryDirectory(prefix="airship-chaos-") as tmp, OwnCluster(Path(tmp) / "cluster") as cluster:
        env = {ADDRESSES_ENV: cluster.addresses, "AIRSHIP_APPEND_REPLICAS": str(opts.append_replicas)}
        with environment(**env):
            base = Settings.from_env(redis_url=cluster.url("admin") + "?cluster=yes")
            return _run(opts, base, Path(tmp), None, progress, cluster)


def _run(opts: ChaosOptions, base: Settings, tmp: Path, server: OwnRedis | None,
         progress: Progress | None, cluster: OwnCluster | None = None) -> ChaosReport:
    settings = base.with_(key_prefix=f"{base.key_prefix}-chaos-{uuid.uuid4().hex[:8]}", partitions=opts.partitions,
                          block_ms=200, claim_idle_ms=1000, claim_every_s=0.5, max_deliveries=20)
    games = opts.games or builtin_games()
    pick = random.Random(opts.seed)
    plan = []  # (an unknown game stops the run here, before any process is started)
    for i in range(opts.matches):
        game = get_game(games[i % len(games)])
        plan.append((game.name, pick.randint(game.min_seats, game.max_seats), opts.seed * 100_000 + i,
                     f"chaos-{i}-{game.name}"))
    ledger = Ledger()
    backend = RedisBackend(settings)
    client = RecordingClient(backend, ledger, poll_ms=200)
    fleet = Fleet(settings, opts.workers, tmp)
    killer = Killer(fleet, opts.kill_every_s, opts.seed)
    restarter = Restarter(server, fleet, ledger, opts.restart_every_s) if server is not None else None
    faults = ClusterFaults(cluster, settings, ledger, opts.restart_every_s, opts.seed) if cluster else None
    started = time.monotonic()
    runs: list[MatchRun] = []
    try:
        killer.start()
        if restarter is not None:
            restarter.start()
        if faults is not None:
            faults.start()
        with ThreadPoolExecutor(max_workers=opts.concurrency, thread_name_prefix="chaos-match") as pool:
            deadline = started + opts.deadline_s
            futures = [pool.submit(play, client, *p, opts.timeout_s, deadline) for p in plan]
            for future in futures:
                runs.append(future.result())
                if progress is not None:
                    progress(len(runs), opts.matches, time.monotonic() - started)
    except BaseException:  # (Ctrl-C, a bug): no worker or projector process outlives the run
        killer.stop()  # (first: it starts new workers)
        fleet.stop()
        raise
    finally:
        killer.stop()
        if restarter is not None:
            restarter.stop()
        if faults is not None:
            faults.stop()
    seconds = time.monotonic() - started
    try:
        await_results(backend, set(ledger.sent), opts.timeout_s)
        await_projector(backend, [r.match_id for r in runs], opts.timeout_s)
        crashed = len(fleet.crashed())
    finally:
        fleet.stop()
    epochs = server.restarts if server else faults.counts.failovers if faults else 0
    findings = check(backend, ledger.sent, [(r.result, r.epoch) for r in ledger.received], epochs,
                     ledger.credentials, fleet.log_files())
    if not opts.keep_keys:
        delete_prefix(backend.redis, settings.key_prefix)
    backend.close()
    results = [r.result for r in ledger.received]
    return ChaosReport(matches=opts.matches, matches_finished=sum(r.finished for r in runs), games=games,
                       commands_sent=len(ledger.sent), results_received=len(results),
                       accepted=sum(r.status == "accepted" for r in results),
                       rejected=sum(r.status == "rejected" for r in results), worker_kills=fleet.kills,
                       redis_restarts=server.restarts if server else 0,
                       slots_moved=faults.counts.slots_moved if faults else 0,
                       failovers=faults.counts.failovers if faults else 0, services_crashed=crashed,
                       seconds=seconds, findings=findings,
                       errors=[f"{r.match_id}: {r.error}" for r in runs if r.error]
                       + (faults.counts.errors if faults else []))


def await_results(backend: RedisBackend, sent: set[tuple[str, str]], timeout_s: float) -> None:
    """Until every command the service took (XADD answered) has a recorded result, or the time is up: a
    command still pending with a killed worker is claimed by another only after the claim timeout, which
    can be after its match ended (the check then reports what is still missing as lost)."""
    deadline = time.monotonic() + timeout_s
    waiting = set(sent)
    while waiting and time.monotonic() < deadline:
        for match_id, command_id in list(waiting):
            if retrying(partial(backend.store.result, match_id, command_id)) is not None:
                waiting.discard((match_id, command_id))
        if waiting:
            time.sleep(0.1)


def await_projector(backend: RedisBackend, match_ids: list[str], timeout_s: float) -> None:
    """Until every match's public view reflects its whole log (or the time is up: the check reports it)."""
    deadline = time.monotonic() + timeout_s
    for match_id in match_ids:
        while time.monotonic() < deadline:
            if retrying(partial(_projected, backend, match_id)):
                break
            time.sleep(0.05)


def _projected(backend: RedisBackend, match_id: str) -> bool:
    record = backend.views.get_view(match_id, "public")
    return record is not None and record.version >= backend.store.version(match_id)


ROWS: list[tuple[str, Callable[[ChaosReport], object]]] = [
    ("matches finished", lambda r: f"{r.matches_finished} / {r.matches}"),
    ("games", lambda r: ", ".join(r.games)),
    ("commands sent", lambda r: r.commands_sent),
    ("results received", lambda r: f"{r.results_received} ({r.accepted} accepted, {r.rejected} rejected)"),
    ("events checked", lambda r: r.findings.events_checked),
    ("workers killed (SIGKILL)", lambda r: r.worker_kills),
    ("processes killed (SIGKILL), by service",
     lambda r: ", ".join(f"{k} {n}" for k, n in sorted(r.process_kills.items())) or "-"),
    ("Redis restarts", lambda r: r.redis_restarts),
    ("cluster slots moved during play", lambda r: r.slots_moved),
    ("cluster masters killed (replica promoted)", lambda r: r.failovers),
    ("seconds", lambda r: f"{r.seconds:.1f}"),
    ("lost commands", lambda r: r.findings.lost_commands),
    ("commands applied twice", lambda r: r.findings.applied_twice),
    ("version gaps", lambda r: r.findings.version_gaps),
    ("views different from a replay", lambda r: r.findings.views_differing),
    ("acknowledged results checked over a restart/failover", lambda r: r.findings.acked_before_restart),
    ("acknowledged events lost over a restart/failover", lambda r: r.findings.acked_lost_over_restart),
    ("acknowledged events lost in all", lambda r: r.findings.acked_lost),
    ("dead letters", lambda r: r.findings.dead_letters),
    ("credentials in data or logs", lambda r: r.findings.leaked_credentials),
    ("services that died by themselves", lambda r: r.services_crashed),
]


def table(report: ChaosReport) -> str:
    lines = [f"{label:44} {value(report)}" for label, value in ROWS]
    lines += [f"error: {e}" for e in report.errors[:20]]
    lines.append(f"{'violations':44} {report.violations}")
    return "\n".join(lines)
