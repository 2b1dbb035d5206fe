"""``airship chaos --stack``: the chaos run on what ships, with its clients where players are.

The stack of docker-compose.yml is started as real processes (``airship stack up``: redis-server from the shipped
``redis.conf`` and ``users.acl``, every process as its own Redis user, the compose file's settings). Random bots
play matches **through the gateway** (HTTP, each match from a loopback address of its own, as separate clients
are), while a fault thread, every ``kill_every_s`` (jittered), SIGKILLs one process of ``targets`` (a worker, the
projector, the gateway or redis-server itself) and starts it again as ``airship stack restart`` does. A client
that loses the gateway or meets a 503 retries with the same idempotency key, as a well-behaved bot does.

At the end, as the admin user, the checks of :mod:`services.chaos.checks` run over everything the clients were
told and everything stored: no command the gateway took lost or applied twice, no version gap, every view equal to
a replay, every acknowledged result's events in the log, no seat token in Redis or in any process's log.
"""

from __future__ import annotations

import random
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import httpx

from schemas.envelopes import CommandResult
from services.chaos.checks import check
from services.chaos.clients import Ledger, MatchRun, retrying, seat_bots
from services.chaos.redis_cluster import acl_passwords
from services.chaos.run import ChaosReport, await_projector, await_results
from services.client import GatewayClient
from services.client.errors import Conflict
from services.games import builtin_games, get_game
from services.gateway.service import scoped_id
from services.logs import get_logger
from services.pipeline.redis_backend import RedisBackend
from services.settings import Settings
from services.stack import run as stack

log = get_logger("chaos")
TARGETS = ("worker", "projector", "gateway", "redis")
SERVICES = ["redis", "worker", "projector", "gateway"]


@dataclass
class StackChaosOptions:
    matches: int = 24
    concurrency: int = 4
    kill_every_s: float = 6.0
    targets: tuple[str, ...] = TARGETS
    seed: int = 1
    timeout_s: float = 90.0
    games: list[str] | None = None
    deadline_s: float = 1800.0
    dir: Path | None = None  # the stack's state directory (default: a temporary one, removed after)
    min_kills: int = 0  # more matches are played (one game after another) until this many kills were made


class RecordingGateway(GatewayClient):
    """A gateway client from its own loopback address that notes every command the gateway took (answered 200 or
    202: published) and every result it was told, under the ids the service stores them by."""

    def __init__(self, url: str, ledger: Ledger, address: str) -> None:
        super().__init__(url, timeout_s=15.0, transport=httpx.HTTPTransport(local_address=address))
        self.ledger = ledger

    def _post_command(self, match_id: str, seat: int, token: str | None, type: str, body: Mapping[str, Any],
                      key: str, expected_version: int | None, wait_s: int) -> CommandResult | None:
        result = super()._post_command(match_id, seat, token, type, body, key, expected_version, wait_s)
        self.ledger.note_sent(scoped_id(seat, key), match_id)
        return result

    def call(self, match_id: str, seat: int, token: str | None, type: str, body: Mapping[str, Any],
             timeout_s: float = 30.0, command_id: str | None = None,
             expected_version: int | None = None) -> CommandResult:
        result = super().call(match_id, seat, token, type, body, timeout_s, command_id, expected_version)
        self.ledger.note_received(result.model_copy(update={"command_id": scoped_id(seat, result.command_id)}))
        return result


class Faults(threading.Thread):
    """Every ``every_s`` (jittered between half and one and a half times), one process of ``targets`` (the services
    in turn, in a random order each round) is killed with SIGKILL, started again (its stack command and environment)
    and waited healthy."""

    def __init__(self, directory: Path, targets: tuple[str, ...], every_s: float, ledger: Ledger, seed: int) -> None:
        super().__init__(name="chaos-stack-faults", daemon=True)
        self.directory, self.targets, self.every_s, self.ledger = directory, targets, every_s, ledger
        self.rng = random.Random(seed)
        self.stopping = threading.Event()
        self.kills: dict[str, int] = {}
        self.errors: list[str] = []
        self.round: list[str] = []

    def run(self) -> None:
        while not self.stopping.wait(self.every_s * self.rng.uniform(0.5, 1.5)):
            try:
                self.kill_one()
            except Exception as e:  # a restart that failed: said in the report, the run goes on
                log.error("chaos fault failed", error=repr(e))
                self.errors.append(f"fault: {e!r}")

    def next_service(self) -> str:
        """The targets in turn, each round in a new random order: every target is hit once a round."""
        if not self.round:
            self.round = list(self.targets)
            self.rng.shuffle(self.round)
        return self.round.pop()

    def kill_one(self) -> None:
        state = stack.State.load(self.directory)
        service = self.next_service()
        victim = self.rng.choice([p for p in state.processes if p.spec.service == service])
        log.warning("chaos: SIGKILL", process=victim.spec.name, pid=victim.pid)
        stack.kill(victim)
        stack.restart(self.directory, victim.spec.name, _say, timeout_s=120.0)
        self.kills[victim.spec.service] = self.kills.get(victim.spec.service, 0) + 1
        if victim.spec.service == "redis":
            with self.ledger.lock:
                self.ledger.epoch += 1

    def stop(self) -> None:
        self.stopping.set()
        self.join()


def lobby(client: RecordingGateway, game: str, seats: int, attempts: int = 20) -> tuple[str, list[str]]:
    """A match of ``game`` created and every seat joined through the gateway, across a lost gateway or Redis.
    A join whose answer was lost cannot be retried (the seat is then taken by a token we never got): the match
    is left open and a new one created."""
    for _ in range(attempts):
        match_id = retrying(lambda: client.create_match(game, seats)).match_id
        try:
            tokens = [retrying(partial(client.join, match_id, seat))[1] for seat in range(seats)]
        except Conflict:
            log.warning("chaos: a seat taken by a lost join; a new match", match_id=match_id)
            continue
        return match_id, tokens
    raise RuntimeError(f"no {game} match could be set up in {attempts} tries")


def play(url: str, ledger: Ledger, address: str, game: str, seats: int, seed: int, timeout_s: float,
         deadline: float) -> MatchRun:
    """One match through the gateway, a random bot per seat, each seat in its own thread."""
    client = RecordingGateway(url, ledger, address)
    run = MatchRun("", game, seats)
    try:
        try:
            run.match_id, tokens = lobby(client, game, seats)
        except Exception as e:
            run.error = f"lobby: {e!r}"
            return run
        with ledger.lock:
            ledger.credentials.extend(t.partition(".")[2] for t in tokens)  # what is secret: the part after "<seat>."
        return seat_bots(run, client, tokens, seed, timeout_s, deadline, pause_s=0.2)
    finally:
        client.close()


def admin_backend(state: stack.State) -> RedisBackend:
    """The stack's store, as the admin user, with the workers' settings (prefix, partitions)."""
    worker = next(p for p in state.processes if p.spec.service == "worker")
    port = state.urls["redis"].rsplit(":", 1)[1]
    url = f"redis://admin:{acl_passwords()['admin']}@127.0.0.1:{port}/0"  # (the development ones the stack runs with)
    return RedisBackend(Settings.from_env(worker.spec.env, redis_url=url))


Progress = Callable[[int, int, float], None]


def _say(line: str) -> None:
    log.info("chaos stack", line=line)


def run_stack_chaos(opts: StackChaosOptions, progress: Progress | None = None) -> ChaosReport:
    games = opts.games or builtin_games()
    pick = random.Random(opts.seed)
    plan = []
    for i in range(opts.matches):
        game = get_game(games[i % len(games)])
        plan.append((game.name, pick.randint(game.min_seats, game.max_seats), opts.seed * 100_000 + i))
    with tempfile.TemporaryDirectory(prefix="airship-chaos-stack-") as tmp:
        directory = (opts.dir or Path(tmp) / "stack").resolve()
        state = stack.up(stack.UpOptions(dir=directory, services=SERVICES, ports={"redis": 0, "gateway": 0},
                                         timeout_s=120.0), _say)
        try:
            return _run(opts, games, plan, directory, state, progress)
        finally:
            stack.down(directory, _say, grace_s=10.0)


def _run(opts: StackChaosOptions, games: list[str], plan: list[tuple[str, int, int]], directory: Path,
         state: stack.State, progress: Progress | None) -> ChaosReport:
    url = state.urls["gateway"]
    ledger = Ledger()
    faults = Faults(directory, opts.targets, opts.kill_every_s, ledger, opts.seed)
    started = time.monotonic()
    runs: list[MatchRun] = []
    try:
        faults.start()
        with ThreadPoolExecutor(max_workers=opts.concurrency, thread_name_prefix="chaos-match") as pool:
            deadline = started + opts.deadline_s
            futures = [pool.submit(play, url, ledger, f"127.0.{1 + i // 250}.{1 + i % 250}", *p, opts.timeout_s,
                                   deadline) for i, p in enumerate(plan)]
            for future in futures:
                runs.append(future.result())
                if progress is not None:
                    progress(len(runs), opts.matches, time.monotonic() - started)
        extra = 0
        while sum(faults.kills.values()) < opts.min_kills and time.monotonic() < started + opts.deadline_s:
            game, seats, seed = plan[extra % len(plan)]
            runs.append(play(url, ledger, f"127.0.3.{1 + extra % 250}", game, seats, seed + 50_000 + extra,
                             opts.timeout_s, started + opts.deadline_s))
            extra += 1
    finally:
        faults.stop()
    seconds = time.monotonic() - started
    state = stack.State.load(directory)
    crashed = [p.spec.name for p in state.processes if not p.alive()]  # each kill was restarted: none by design
    backend = admin_backend(state)
    try:
        await_results(backend, set(ledger.sent), opts.timeout_s)
        await_projector(backend, [r.match_id for r in runs if r.match_id], opts.timeout_s)
        logs = sorted((directory / "logs").glob("*.log"))
        findings = check(backend, ledger.sent, [(r.result, r.epoch) for r in ledger.received],
                         faults.kills.get("redis", 0), ledger.credentials, logs)
    finally:
        backend.close()
    results = [r.result for r in ledger.received]
    return ChaosReport(matches=len(runs), matches_finished=sum(r.finished for r in runs), games=games,
                       commands_sent=len(ledger.sent), results_received=len(results),
                       accepted=sum(r.status == "accepted" for r in results),
                       rejected=sum(r.status == "rejected" for r in results),
                       worker_kills=faults.kills.get("worker", 0), redis_restarts=faults.kills.get("redis", 0),
                       slots_moved=0, failovers=0, services_crashed=len(crashed), seconds=seconds,
                       findings=findings, process_kills=dict(faults.kills),
                       errors=[f"{r.match_id or '(lobby)'}: {r.error}" for r in runs if r.error] + faults.errors
                       + [f"{name} was not running at the end" for name in crashed])

