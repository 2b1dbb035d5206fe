"""``airship stack``: the compose file's stack as real processes on this host. ``stack up`` in a temporary
directory on free ports, then: every process alive and healthy by its compose health check, each with exactly
its service's command and environment from docker-compose.yml (after the documented host rewrites, worked out
here independently of the harness, so drift between the file and what runs fails), a match of each game through
the gateway, the bots service finishing matches, no ACL denial in Redis, and ``stack down`` leaving nothing."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
import yaml

from services.bots.plugins import make_bot
from services.bots.runner import MatchReport, play_match
from services.client import GatewayClient
from services.stack import compose
from services.stack.plan import Layout, plan
from tests.ops.conftest import ROOT, free_port
from tests.registered import GAMES

COMPOSE = ROOT / "docker-compose.yml"
ACL = ROOT / "infra" / "redis" / "users.acl"
BASE_ENV = {"PATH", "HOME", "PYTHONPATH"}  # the harness's base environment (services/stack/plan.py)
LEAK = "AIRSHIP_STACK_TEST_NOT_PASSED_ON"


@dataclass
class Stack:
    dir: Path
    redis_port: int
    gateway_port: int
    compose: dict[str, Any]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.gateway_port}"

    def state(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.dir / "state.json").read_text())
        return data

    def processes(self) -> list[dict[str, Any]]:
        procs: list[dict[str, Any]] = self.state()["processes"]
        return procs


def airship(*args: str, timeout_s: float = 120.0) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, LEAK: "1"}
    return subprocess.run([sys.executable, "-m", "services.cli", *args], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=timeout_s)


def environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    return dict(entry.split("=", 1) for entry in raw.decode().split("\0") if entry)


def cmdline(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")[:-1]


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] not in "ZX"


def in_group(pgid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2:].split()
            if int(fields[2]) == pgid and fields[0] not in "ZX":
                found.append(int(entry.name))
    return found


def container_port(service: dict[str, Any]) -> int:
    return int(str(service["ports"][0]).rsplit(":", 1)[1])


def airship_services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {n: s for n, s in compose["services"].items() if str(s.get("image", "")).startswith("airship")}


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    if shutil.which("redis-server") is None or not Path("/proc/self/environ").exists():
        pytest.skip("needs redis-server and /proc (Linux)")
    directory = tmp_path_factory.mktemp("stack")
    stack = Stack(directory, free_port(), free_port(), yaml.safe_load(COMPOSE.read_text()))
    started = time.monotonic()
    done = airship("stack", "up", "--dir", str(directory), "--redis-port", str(stack.redis_port),
                   "--gateway-port", str(stack.gateway_port), "--timeout-s", "60")
    try:
        assert done.returncode == 0, f"stack up failed:\n{done.stderr}"
        assert f"export AIRSHIP_URL={stack.url}" in done.stdout
        print(f"stack up took {time.monotonic() - started:.1f}s", file=sys.stderr)
        yield stack
    finally:
        if (directory / "state.json").exists() and stack.state()["status"] != "stopped":
            airship("stack", "down", "--dir", str(directory), "--grace-s", "5")


@pytest.mark.gateway
def test_every_process_of_the_compose_file_runs_and_is_healthy(stack: Stack) -> None:
    procs = stack.processes()
    wanted = {"redis": 1} | {n: int((s.get("deploy") or {}).get("replicas", 1))
                             for n, s in airship_services(stack.compose).items()}
    assert wanted["worker"] == 2
    counts = {n: sum(p["service"] == n for p in procs) for n in wanted}
    assert counts == wanted
    assert all(alive(p["pid"]) for p in procs)
    done = airship("stack", "status", "--dir", str(stack.dir), "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert {p["name"]: p["health"] for p in report["processes"]} == {p["name"]: "healthy" for p in procs}
    again = airship("stack", "up", "--dir", str(stack.dir))
    assert again.returncode == 1 and "already running" in again.stderr


@pytest.mark.gateway
def test_each_process_runs_its_services_command(stack: Stack) -> None:
    services = stack.compose["services"]
    for proc in stack.processes():
        argv, service = cmdline(proc["pid"]), services[proc["service"]]
        command = [str(w).replace("$$", "$") for w in service["command"]]
        if proc["service"] == "redis":  # redis-server rewrites its title; its conf is checked below
            assert Path(argv[0]).name.startswith("redis-server"), argv
            continue
        if service.get("tmpfs"):  # each process's own /tmp (in the compose command: not the host's interpreter path)
            command = [re.sub(r"(?<![\w./-])/tmp(?=/)", proc["cwd"], w) for w in command]
        if command[0] == "airship":
            command = [sys.executable, "-m", "services.cli", *command[1:]]
        if proc["service"] == "gateway":  # the published port and the address compose publishes it on
            port = str(container_port(service))
            command = [str(stack.gateway_port) if w == port else "127.0.0.1" if w == "0.0.0.0" else w
                       for w in command]
        assert argv == command, proc["name"]


def mounted(value: str, service: dict[str, Any], directory: Path, process: str) -> str | None:
    """The host path the harness gives a container path under one of the service's mounts (its rule)."""
    mounts = {str(v).split(":")[1]: str(v).split(":")[0] for v in service.get("volumes") or []}
    mounts |= {str(t): "tmpfs" for t in service.get("tmpfs") or []}
    for target, source in sorted(mounts.items(), key=lambda m: -len(m[0])):
        if value == target or value.startswith(target + "/"):
            base = (directory / "tmp" / process if source == "tmpfs" else (ROOT / source).resolve()
                    if source.startswith(".") else directory / "volumes" / source)
            return str(base) + value[len(target):]
    return None


def expected_env(service: dict[str, Any], actual: dict[str, str], hosts: dict[str, int], directory: Path,
                 process: str) -> tuple[dict[str, str], list[int]]:
    """The compose file's variables of ``service`` after the documented rewrites; the port variables take the
    process's own port (returned too, to check they differ and answer)."""
    expected = {k: str(v) for k, v in (service.get("environment") or {}).items()}
    ports = []
    for key, value in expected.items():
        for host, port in hosts.items():
            value = re.sub(rf"(?<![\w.-]){re.escape(host)}(?!\d)", f"127.0.0.1:{port}", value)
        if key.endswith("_PORT") and value != "0":
            value = actual.get(key, "missing")
            ports.append(int(value))
        elif value.startswith("/"):
            value = mounted(value, service, directory, process) or value
        expected[key] = value
    return expected, ports


@pytest.mark.gateway
def test_each_process_has_exactly_its_services_environment(stack: Stack) -> None:
    services = stack.compose["services"]
    hosts = {f"{name}:{container_port(services[name])}": port
             for name, port in (("redis", stack.redis_port), ("gateway", stack.gateway_port))}
    own_ports: list[int] = []
    for proc in stack.processes():
        # redis-server writes its title over its environment block: there, what the harness passed
        env = proc["env"] if proc["service"] == "redis" else environ(proc["pid"])
        assert env["PYTHONPATH"] == str(ROOT) and LEAK not in env
        expected, ports = expected_env(services[proc["service"]], env, hosts, stack.dir, proc["name"])
        own_ports += ports
        assert {k: v for k, v in env.items() if k not in BASE_ENV} == expected, proc["name"]
    assert len(own_ports) == len(set(own_ports)) >= 6  # worker x2 and projector: metrics and health each
    for proc in stack.processes():
        env = proc["env"] if proc["service"] == "redis" else environ(proc["pid"])
        if env.get("AIRSHIP_HEALTH_PORT", "0") != "0":
            assert httpx.get(f"http://127.0.0.1:{env['AIRSHIP_HEALTH_PORT']}/readyz").status_code == 200
        if env.get("AIRSHIP_METRICS_PORT", "0") != "0":
            assert httpx.get(f"http://127.0.0.1:{env['AIRSHIP_METRICS_PORT']}/metrics").status_code == 200


@pytest.mark.gateway
def test_the_bots_service_finishes_matches(stack: Stack) -> None:
    deadline = time.monotonic() + 30
    while True:
        done = airship("stack", "logs", "bots", "--dir", str(stack.dir))
        if "seat 0" in done.stdout:  # the results table `airship tournament` prints after its match
            break
        assert time.monotonic() < deadline, f"no finished bots match in the log:\n{done.stdout}"
        time.sleep(0.5)
    with GatewayClient(stack.url) as client:
        assert client.matches(status="finished")


@pytest.mark.gateway
def test_a_match_of_each_game_through_the_gateway(stack: Stack) -> None:
    def play(game: str) -> MatchReport:
        with GatewayClient(stack.url) as client:
            bots = [make_bot("random", game, seat) for seat in range(4)]
            report = play_match(client, game, 4, bots, timeout_s=30)
            assert client.match(report.meta.match_id).status == "finished"
            return report

    with ThreadPoolExecutor(len(GAMES)) as pool:
        reports = list(pool.map(play, GAMES))
    for game, report in zip(GAMES, reports, strict=True):
        assert report.meta.game == game and report.outcome and report.commands > 0


def admin() -> redis.Redis:
    line = next(x for x in ACL.read_text().splitlines() if x.startswith("user admin "))
    password = next(w[1:] for w in line.split() if w.startswith(">"))
    return redis.Redis(username="admin", password=password, decode_responses=True)


@pytest.mark.gateway
def test_redis_runs_the_shipped_conf_and_acl(stack: Stack) -> None:
    shipped = (ROOT / "infra" / "redis" / "redis.conf").read_text().splitlines()
    (redis_proc,) = [p for p in stack.processes() if p["service"] == "redis"]
    conf = Path(next(w for w in redis_proc["argv"] if w.endswith(".conf")))
    lines = [x for x in conf.read_text().splitlines() if not x.startswith("#")]
    changed = [(a, b) for a, b in zip([x for x in shipped if not x.startswith("#")], lines, strict=True) if a != b]
    assert sorted(a.split()[0] for a, _ in changed) == ["aclfile", "dir"], changed  # only the container paths
    client = admin()
    client.connection_pool.connection_kwargs["port"] = stack.redis_port
    try:
        assert client.config_get("aclfile")["aclfile"] == str(ACL)
        assert client.config_get("port")["port"] == str(stack.redis_port)
        assert client.config_get("appendonly")["appendonly"] == "yes"
        users = {line.split()[1] for line in ACL.read_text().splitlines() if line.strip()}
        assert set(client.acl_users()) == users
    finally:
        client.close()


@pytest.mark.gateway
def test_redis_logged_no_acl_denial(stack: Stack) -> None:
    client = admin()
    client.connection_pool.connection_kwargs["port"] = stack.redis_port
    try:
        assert client.execute_command("ACL", "LOG") == []
    finally:
        client.close()


@pytest.mark.gateway
def test_stack_down_stops_everything(stack: Stack) -> None:
    procs = stack.processes()
    done = airship("stack", "down", "--dir", str(stack.dir))
    assert done.returncode == 0, done.stderr
    for proc in procs:
        assert not alive(proc["pid"]) and not in_group(proc["pid"]), proc["name"]
    assert stack.state()["status"] == "stopped"
    assert not list((stack.dir / "pids").iterdir())
    assert (stack.dir / "logs" / "gateway-1.log").exists()  # only the pids go, unless --clean
    assert airship("stack", "status", "--dir", str(stack.dir)).returncode == 1


# Without processes (also in `make test-fast`): the reading of the compose file and the plan made of it.

def test_compose_interpolation_as_docker_compose_does_it() -> None:
    env = {"B": "b", "E": ""}
    assert compose.interpolate("$$X ${A:-d} $B ${E-unset} ${E:-empty} $${B}", env) == "$X d b  empty ${B}"
    assert compose.duration_s("1m30s", 0) == 90 and compose.duration_s("500ms", 0) == 0.5
    with pytest.raises(compose.ComposeError):
        compose.interpolate("${NEEDED:?set NEEDED}", {})


def test_the_plan_changes_only_host_names_ports_and_container_paths(tmp_path: Path) -> None:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    services = compose.runnable(compose.load(COMPOSE))
    raw = yaml.safe_load(COMPOSE.read_text())["services"]
    assert set(services) == {"redis", *airship_services(yaml.safe_load(COMPOSE.read_text()))}
    ports = iter(range(41000, 42000))
    hosts = {"redis:6379": 16379, "gateway:8000": 18000}
    specs = plan(services, list(services), Layout(tmp_path), {(h.split(":")[0], int(h.split(":")[1])): p
                                                               for h, p in hosts.items()}, lambda: next(ports))
    assert [s.name for s in specs] == [f"{n}-{i}" for n in services for i in range(1, services[n].replicas + 1)]
    assert [s.name for s in specs if s.service == "worker"] == ["worker-1", "worker-2"]
    own_ports: list[int] = []
    for spec in specs:
        env = {k: v for k, v in spec.env.items() if k not in BASE_ENV}
        expected, used = expected_env(raw[spec.service], env, hosts, tmp_path, spec.name)
        assert env == expected, spec.name
        own_ports += used
    assert len(own_ports) == len(set(own_ports)) and all(41000 <= p < 42000 for p in own_ports)
    gateway = next(s for s in specs if s.service == "gateway")
    assert gateway.argv[-4:] == ["--host", "127.0.0.1", "--port", "18000"]
    assert gateway.health and "'ready', 18000" in gateway.health[-1]
    bots = next(s for s in specs if s.service == "bots")
    assert f"touch {tmp_path}/tmp/bots-1/bots-alive" in bots.argv[2] and "/tmp/bots-alive" not in bots.argv[2]
    assert '"$AIRSHIP_URL"' in bots.argv[2]  # $$ is a literal $, for sh to expand


def test_status_of_a_directory_without_a_stack(tmp_path: Path) -> None:
    done = airship("stack", "status", "--dir", str(tmp_path))
    assert done.returncode == 1 and "no stack in" in done.stderr
