"""Starting, probing and stopping the stack's processes; the state directory.

``<dir>/state.json`` lists every process (pid, its start time in clock ticks so a reused pid is never
signalled, command, environment, health check, ports, rewrites); ``<dir>/pids/<process>.pid`` and
``<dir>/logs/<process>.log`` (stdout and stderr) sit beside it. Processes run in sessions of their own, so they
outlive ``airship stack up`` and a stop signal reaches a whole process group (``sh -c`` and its children).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from services.logs import get_logger
from services.stack import compose
from services.stack.compose import ComposeError, Service
from services.stack.plan import LOOPBACK, Layout, ProcessSpec, plan, write_shim

log = get_logger("stack")
STATE_VERSION = 1
POLL_S = 0.5  # health is probed this often while waiting (compose would wait for the interval)
Progress = Callable[[str], None]
STATE_SUBDIRS = ("logs", "pids", "tmp", "volumes")


class StackError(RuntimeError):
    """The stack could not be started, or is not in the state the command needs."""


def default_dir() -> Path:
    if os.environ.get("AIRSHIP_STACK_DIR"):
        return Path(os.environ["AIRSHIP_STACK_DIR"])
    state_home = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state_home) / "airship" / "stack"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return int(s.getsockname()[1])


def port_is_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((LOOPBACK, port))
        except OSError:
            return False
        return True


# --- processes, by pid and start time ---------------------------------------------------------------------

def _stat(pid: int) -> list[str] | None:
    """Fields 3.. of /proc/<pid>/stat (state first), or None when there is no such process."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2:].split()


def start_ticks(pid: int) -> int | None:
    fields = _stat(pid)
    return int(fields[19]) if fields else None


def is_running(pid: int, ticks: int | None) -> bool:
    """Alive (not a zombie) and the same process that was started (same start time)."""
    fields = _stat(pid)
    if fields is None:
        if not Path("/proc").is_dir():
            try:
                os.kill(pid, 0)
            except OSError:
                return False
            return True
        return False
    return fields[0] not in ("Z", "X") and (ticks is None or int(fields[19]) == ticks)


def group_members(pgid: int) -> list[int]:
    """Live processes in process group ``pgid`` (the session a stack process started)."""
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat(int(entry.name))
            if fields and int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
                members.append(int(entry.name))
    return members


# --- the state file -----------------------------------------------------------------------------------------

@dataclass
class Running:
    spec: ProcessSpec
    pid: int
    ticks: int | None

    def alive(self) -> bool:
        return is_running(self.pid, self.ticks)

    def as_dict(self) -> dict[str, Any]:
        return {**self.spec.as_dict(), "pid": self.pid, "start_ticks": self.ticks}


@dataclass
class State:
    dir: Path
    compose_file: str
    status: str = "starting"  # starting, up, failed, stopped
    started_at: float = field(default_factory=time.time)
    urls: dict[str, str] = field(default_factory=dict)
    processes: list[Running] = field(default_factory=list)
    services: dict[str, list[str]] = field(default_factory=dict)  # service -> its processes, in start order
    levels: list[list[str]] = field(default_factory=list)  # services in start order (each after its dependencies)
    not_reproduced: dict[str, list[str]] = field(default_factory=dict)

    @property
    def layout(self) -> Layout:
        return Layout(self.dir)

    def save(self) -> None:
        data = {"version": STATE_VERSION, "compose_file": self.compose_file, "status": self.status,
                "started_at": self.started_at, "urls": self.urls, "services": self.services, "levels": self.levels,
                "not_reproduced": self.not_reproduced, "processes": [p.as_dict() for p in self.processes]}
        path = self.layout.state_file
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=2) + "\n")
        tmp.chmod(0o600)  # it holds the services' environments (the development passwords of the compose file)
        tmp.replace(path)

    @classmethod
    def load(cls, directory: Path) -> State:
        path = Layout(directory).state_file
        if not path.exists():
            raise StackError(f"no stack in {directory} (no {path.name}); start one with `airship stack up`")
        data = json.loads(path.read_text())
        procs = [Running(ProcessSpec.from_dict(p), int(p["pid"]), p.get("start_ticks")) for p in data["processes"]]
        return cls(directory, data["compose_file"], status=data["status"], started_at=data["started_at"],
                   urls=data.get("urls", {}), processes=procs, services=data.get("services", {}),
                   levels=data.get("levels", []), not_reproduced=data.get("not_reproduced", {}))

    def by_service(self, name: str) -> list[Running]:
        found = [p for p in self.processes if name in (p.spec.service, p.spec.name)]
        if not found:
            raise StackError(f"no service or process {name!r}; have {', '.join(self.services)}")
        return found


# --- health ------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Health:
    name: str
    state: str  # healthy, unhealthy, exited
    detail: str = ""

    @property
    def healthy(self) -> bool:
        return self.state == "healthy"


def probe(proc: Running) -> Health:
    """The service's compose health check, run as the host command the plan made of it."""
    if not proc.alive():
        return Health(proc.spec.name, "exited", f"pid {proc.pid} is gone; see {proc.spec.log}")
    if proc.spec.health is None:
        return Health(proc.spec.name, "healthy", "running (no health check)")
    try:
        done = subprocess.run(proc.spec.health, env=proc.spec.env, cwd=proc.spec.cwd, capture_output=True, text=True,
                              timeout=proc.spec.health_timeout_s, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return Health(proc.spec.name, "unhealthy", f"health check timed out after {proc.spec.health_timeout_s:g}s")
    except OSError as e:
        return Health(proc.spec.name, "unhealthy", f"health check could not run: {e}")
    text = " ".join((done.stdout + done.stderr).split())[:200]
    return Health(proc.spec.name, "healthy" if done.returncode == 0 else "unhealthy", text)


def probe_all(procs: Iterable[Running]) -> list[Health]:
    procs = list(procs)
    if not procs:
        return []
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(procs)) as pool:
        return list(pool.map(probe, procs))


def tail(path: str | Path, lines: int = 20) -> str:
    try:
        return "\n".join(Path(path).read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def wait_healthy(procs: list[Running], timeout_s: float, progress: Progress) -> None:
    """Probe every ``POLL_S`` until all are healthy; raise at the first exit or when the time runs out."""
    started = time.monotonic()
    pending = {p.spec.name: p for p in procs}
    last: dict[str, Health] = {}
    while pending:
        for health in probe_all(pending.values()):
            last[health.name] = health
            proc = pending[health.name]
            if health.state == "exited":
                raise StackError(f"{health.name} exited; the end of {proc.spec.log}:\n{tail(proc.spec.log)}")
            if health.healthy:
                progress(f"{health.name} healthy after {time.monotonic() - started:.1f}s")
                log.info("healthy", process=health.name, after_s=round(time.monotonic() - started, 2))
                del pending[health.name]
        if pending and time.monotonic() - started > timeout_s:
            details = "; ".join(f"{n}: {last[n].detail or last[n].state}" for n in pending)
            raise StackError(f"not healthy within {timeout_s:g}s: {details}")
        if pending:
            time.sleep(POLL_S)


# --- up ----------------------------------------------------------------------------------------------------

@dataclass
class UpOptions:
    dir: Path
    compose_file: Path = compose.COMPOSE_FILE
    services: list[str] | None = None  # default: every service the harness can run
    ports: dict[str, int] = field(default_factory=dict)  # service -> host port of its (first) published port
    wait: bool = True  # also wait for the services nothing depends on (like `docker compose up --wait`)
    timeout_s: float = 120.0


def choose_ports(services: Mapping[str, Service], names: list[str], wanted: Mapping[str, int],
                 progress: Progress) -> dict[tuple[str, int], int]:
    """The host port of each published port: the one asked for, else compose's when free, else a free one."""
    chosen: dict[tuple[str, int], int] = {}
    for name in names:
        for i, port in enumerate(services[name].ports):
            if i == 0 and name in wanted:
                chosen[(name, port.container_port)] = wanted[name] or free_port()
            elif port_is_free(port.host_port):
                chosen[(name, port.container_port)] = port.host_port
            else:
                other = free_port()
                progress(f"{name}: port {port.host_port} is taken on this host; using {other}")
                log.info("port taken", service=name, port=port.host_port, instead=other)
                chosen[(name, port.container_port)] = other
    return chosen


def _spawn(spec: ProcessSpec, layout: Layout) -> Running:
    Path(spec.cwd).mkdir(parents=True, exist_ok=True)
    for path, text in spec.files.items():
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(text)
    with open(spec.log, "ab") as out:
        proc = subprocess.Popen(spec.argv, env=spec.env, cwd=spec.cwd, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
    layout.pid(spec.name).write_text(f"{proc.pid}\n")
    return Running(spec, proc.pid, start_ticks(proc.pid))


def up(opts: UpOptions, progress: Progress) -> State:
    """Start the stack in ``opts.dir``; on failure stop what was started (logs stay) and raise."""
    directory = opts.dir.resolve()
    layout = Layout(directory)
    if layout.state_file.exists():
        old = State.load(directory)
        if any(p.alive() for p in old.processes):
            raise StackError(f"a stack is already running from {directory}; `airship stack down --dir {directory}`")
    all_services = compose.load(opts.compose_file)
    services = compose.runnable(all_services)
    names = compose.with_dependencies(services, opts.services or list(services))
    for name in opts.ports:
        if name not in names or not services[name].ports:
            raise StackError(f"--{name}-port: {name} is not started or publishes no port")
    for sub in STATE_SUBDIRS:
        (directory / sub).mkdir(parents=True, exist_ok=True)
    write_shim(layout)
    for name in names:
        for mount in services[name].mounts:
            if mount.kind == "volume":
                layout.volume(mount.source).mkdir(parents=True, exist_ok=True)
    published = choose_ports(services, names, opts.ports, progress)
    specs = plan(services, names, layout, published, free_port)
    state = State(directory, str(opts.compose_file.resolve()))
    state.services = {n: [s.name for s in specs if s.service == n] for n in names}
    state.not_reproduced = {n: list(services[n].unsupported) for n in names if services[n].unsupported}
    state.not_reproduced["(not started)"] = [n for n in all_services if n not in services]
    for (name, _container), host_port in published.items():
        scheme = "redis" if compose.is_redis(services[name]) else "http"
        state.urls.setdefault(name, f"{scheme}://{LOOPBACK}:{host_port}")
    levels = state.levels = compose.levels(services, names)
    needed = {d for n in names for d, how in services[n].depends_on.items() if how == "service_healthy"}
    try:
        for level in levels:
            started = []
            for spec in (s for s in specs if s.service in level):
                running = _spawn(spec, layout)
                state.processes.append(running)
                started.append(running)
                state.save()
                ports = ", ".join(f"{k}={v}" for k, v in spec.ports.items())
                progress(f"{spec.name} started (pid {running.pid}{', ' + ports if ports else ''})")
                log.info("started", process=spec.name, pid=running.pid, argv=spec.argv[:6], ports=spec.ports)
            waiting = [r for r in started if r.spec.service in needed or opts.wait]
            if waiting:
                wait_healthy(waiting, opts.timeout_s, progress)
        state.status = "up"
        state.save()
        return state
    except (StackError, ComposeError, OSError, KeyboardInterrupt) as e:
        state.status = "failed"
        state.save()
        progress(f"start failed: {e}")
        progress("stopping what was started (the logs stay in " + str(directory / "logs") + ")")
        stop(state, progress)
        raise StackError(str(e) or type(e).__name__) from e


# --- down --------------------------------------------------------------------------------------------------

def _signal_group(proc: Running, sig: signal.Signals) -> None:
    if not proc.alive():
        return
    try:
        if os.getpgid(proc.pid) == proc.pid:
            os.killpg(proc.pid, sig)
        else:
            os.kill(proc.pid, sig)
    except ProcessLookupError:
        pass


def kill(proc: Running) -> None:
    """SIGKILL a process's whole group, as an OOM kill or a node loss would (chaos: ``airship chaos --stack``)."""
    _signal_group(proc, signal.SIGKILL)


def _gone(proc: Running) -> bool:
    return not proc.alive() and not (Path("/proc").is_dir() and group_members(proc.pid))


def stop(state: State, progress: Progress, grace_s: float | None = None) -> list[str]:
    """Stop every process, dependents first (the reverse of the start order, level by level): the compose
    stop signal to its process group, then SIGKILL after the grace period (compose's stop_grace_period unless
    ``grace_s``). Returns the names that had to be killed."""
    levels = state.levels or [[name] for name in state.services]
    order = [[p for p in state.processes if p.spec.service in level] for level in reversed(levels)]
    killed: list[str] = []
    for group in order:
        killed += _stop_group(state, group, progress, grace_s)
    return killed


def _stop_group(state: State, group: list[Running], progress: Progress, grace_s: float | None) -> list[str]:
    """Stop ``group`` together: its stop signals, then SIGKILL past each one's grace period."""
    killed: list[str] = []
    live = [p for p in group if p.alive()]
    for proc in live:
        _signal_group(proc, signal.Signals[proc.spec.stop_signal])
    deadline = {p.spec.name: time.monotonic() + (grace_s if grace_s is not None else p.spec.stop_grace_s)
                for p in live}
    signalled = time.monotonic()
    while live:
        for proc in [p for p in live if _gone(p)]:
            progress(f"{proc.spec.name} stopped after {time.monotonic() - signalled:.1f}s")
        live = [p for p in live if not _gone(p)]
        for proc in [p for p in live if time.monotonic() > deadline[p.spec.name]]:
            progress(f"{proc.spec.name} did not stop within its grace period: SIGKILL")
            log.warning("killed", process=proc.spec.name, pid=proc.pid)
            with contextlib.suppress(OSError):  # the group: also children of a leader that already exited
                os.killpg(proc.pid, signal.SIGKILL)
            killed.append(proc.spec.name)
            deadline[proc.spec.name] = float("inf")
        if live:
            time.sleep(0.05)
    for proc in group:
        state.layout.pid(proc.spec.name).unlink(missing_ok=True)
    return killed


# --- restart and scale -------------------------------------------------------------------------------------

def restart(directory: Path, name: str, progress: Progress, timeout_s: float = 120.0,
            grace_s: float | None = None) -> State:
    """Restart a service's processes one at a time (``worker``: each replica in turn; ``worker-2``: that one):
    its stop signal and grace period, the same command and environment again (a new version of the code, if it
    was installed meanwhile), and healthy before the next one goes — a rolling restart, as a rolling update of
    a Deployment does it."""
    state = State.load(directory.resolve())
    for old in state.by_service(name):
        _stop_group(state, [old], progress, grace_s)
        new = _spawn(old.spec, state.layout)
        state.processes[state.processes.index(old)] = new
        state.save()
        progress(f"{new.spec.name} restarted (pid {new.pid})")
        log.info("restarted", process=new.spec.name, pid=new.pid)
        wait_healthy([new], timeout_s, progress)
    return state


def scale(directory: Path, service: str, replicas: int, progress: Progress, timeout_s: float = 120.0,
          grace_s: float | None = None) -> State:
    """Run ``replicas`` processes of ``service``: new replicas are planned from the compose file as ``up`` plans
    them (each its own ports), started and waited healthy; surplus ones (the highest numbers) are stopped."""
    if replicas < 0:
        raise StackError("replicas: 0 or more")
    state = State.load(directory.resolve())
    if service not in state.services:
        raise StackError(f"no service {service!r}; have {', '.join(state.services)}")
    current = sorted((p for p in state.processes if p.spec.service == service), key=lambda p: p.spec.replica)
    if replicas < len(current):
        surplus = current[replicas:]
        _stop_group(state, surplus, progress, grace_s)
        state.processes = [p for p in state.processes if p not in surplus]
    elif replicas > len(current):
        services = compose.runnable(compose.load(Path(state.compose_file)))
        if services[service].ports and replicas > 1:
            raise StackError(f"{service} publishes port {services[service].ports[0].host_port}: one replica only")
        published = {(p.spec.service, int(key.split("/")[0])): port for p in state.processes
                     for key, port in p.spec.ports.items() if key.endswith("/tcp")}
        redis = [n for n in state.services if compose.is_redis(services[n])]
        taken = {p.spec.replica for p in current}
        wanted = dataclasses.replace(services[service], replicas=max(taken | {0}) + replicas - len(current))
        specs = plan({**services, service: wanted}, [*redis, service], state.layout, published, free_port)
        new = [s for s in specs if s.service == service and s.replica not in taken]
        started = []
        for spec in new:
            running = _spawn(spec, state.layout)
            state.processes.append(running)
            started.append(running)
            progress(f"{spec.name} started (pid {running.pid})")
        state.save()
        wait_healthy(started, timeout_s, progress)
    state.services[service] = [p.spec.name for p in state.processes if p.spec.service == service]
    state.save()
    log.info("scaled", service=service, replicas=replicas)
    return state


def down(directory: Path, progress: Progress, grace_s: float | None = None, clean: bool = False) -> State:
    directory = directory.resolve()
    state = State.load(directory)
    killed = stop(state, progress, grace_s)
    state.status = "stopped"
    state.save()
    log.info("stack down", dir=str(directory), killed=killed)
    if clean:  # only what `up` made: a --dir that held other files keeps them
        for sub in (*STATE_SUBDIRS, "bin", "config", "rootfs"):
            shutil.rmtree(directory / sub, ignore_errors=True)
        for name in ("state.json", "state.tmp"):
            (directory / name).unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            directory.rmdir()
        progress(f"removed the stack's files in {directory}")
    return state


def status(directory: Path) -> tuple[State, list[Health]]:
    state = State.load(directory.resolve())
    return state, probe_all(state.processes)


def stderr_progress(line: str) -> None:
    print(f"stack: {line}", file=sys.stderr, flush=True)
