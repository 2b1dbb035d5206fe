"""From compose services to host processes: the command, environment and health check of each replica, with
the few rewrites a host run needs (see :mod:`services.stack`), each one recorded."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from services import redis_binary
from services.stack.compose import ROOT, ComposeError, Mount, Service, is_redis

LOOPBACK = "127.0.0.1"
ANY_ADDRESS = "0.0.0.0"
BASE_ENV_KEYS = ("PATH", "HOME", "PYTHONPATH")  # the only variables a process gets beyond its service's
SHIM = ("#!/bin/sh\n# airship -> this interpreter's CLI (written by `airship stack up`)\n"
        "exec {python} -m services.cli \"$@\"\n")
# redis.conf directives naming a path in the container: mapped through the service's mounts
REDIS_PATH_DIRECTIVES = ("dir", "aclfile", "logfile", "pidfile", "unixsocket")


@dataclass
class ProcessSpec:
    """One OS process of the stack (``worker-2``): what to run and how to probe it."""

    name: str
    service: str
    replica: int
    argv: list[str]
    env: dict[str, str]  # the whole environment it gets: BASE_ENV_KEYS + the service's (rewritten)
    cwd: str  # its private /tmp
    log: str
    health: list[str] | None  # the health check as a host command (None: healthy while alive)
    health_timeout_s: float
    stop_grace_s: float
    stop_signal: str
    ports: dict[str, int] = field(default_factory=dict)  # "8000/tcp" (published) or a port variable -> host port
    rewrites: list[str] = field(default_factory=list)  # every change made to the compose file's words
    files: dict[str, str] = field(default_factory=dict)  # written before the start: path -> text

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ProcessSpec:
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})


class Rewriter:
    """Ordered text substitutions with word boundaries; records each one that changed something."""

    def __init__(self) -> None:
        self._rules: list[tuple[re.Pattern[str], str, str]] = []
        self.applied: dict[str, None] = {}

    def host(self, old: str, new: str) -> None:
        self._rules.append((re.compile(rf"(?<![\w.-]){re.escape(old)}(?!\d)"), new, f"{old} -> {new}"))

    def token(self, old: str, new: str, why: str) -> None:
        if old != new:
            self._rules.append((re.compile(rf"(?<![\w.]){re.escape(old)}(?![\w.])"), new, f"{old} -> {new} ({why})"))

    def word(self, old: str, new: str, why: str) -> None:
        """``old`` as a whole shell word (a command name)."""
        self._rules.append((re.compile(rf"(?<![\w./-]){re.escape(old)}(?![\w./-])"), new, f"{old} -> {new} ({why})"))

    def path(self, old: str, new: str, why: str) -> None:
        pattern = rf"(?<![\w./-]){re.escape(old.rstrip('/'))}(?=/|$|[^\w.-])"
        self._rules.append((re.compile(pattern), new, f"{old} -> {new} ({why})"))

    def __call__(self, text: str) -> str:
        for pattern, new, label in self._rules:
            text, n = pattern.subn(lambda _m, new=new: new, text)  # type: ignore[misc]
            if n:
                self.applied[label] = None
        return text

    def copy(self) -> Rewriter:
        other = Rewriter()
        other._rules = list(self._rules)
        return other


@dataclass
class Layout:
    """Where a stack keeps its files: ``<dir>/logs``, ``pids``, ``tmp/<process>``, ``volumes/<name>``, ``bin``."""

    dir: Path

    @property
    def state_file(self) -> Path:
        return self.dir / "state.json"

    @property
    def bin(self) -> Path:
        return self.dir / "bin"

    def log(self, name: str) -> Path:
        return self.dir / "logs" / f"{name}.log"

    def pid(self, name: str) -> Path:
        return self.dir / "pids" / f"{name}.pid"

    def tmp(self, name: str) -> Path:
        return self.dir / "tmp" / name

    def volume(self, name: str) -> Path:
        return self.dir / "volumes" / name


def write_shim(layout: Layout, python: str = sys.executable) -> None:
    """``<dir>/bin/airship``: the airship command of the image, as this interpreter's CLI."""
    layout.bin.mkdir(parents=True, exist_ok=True)
    shim = layout.bin / "airship"
    shim.write_text(SHIM.format(python=python))
    shim.chmod(0o755)


def base_env(layout: Layout) -> dict[str, str]:
    host_path = os.environ.get("PATH") or os.defpath
    return {"PATH": f"{layout.bin}{os.pathsep}{host_path}", "HOME": os.environ.get("HOME", str(layout.dir)),
            "PYTHONPATH": str(ROOT)}


def mount_source(mount: Mount, layout: Layout, process: str) -> str:
    if mount.kind == "bind":
        return mount.source
    if mount.kind == "volume":
        return str(layout.volume(mount.source))
    return str(layout.tmp(process))


def map_path(path: str, mounts: tuple[Mount, ...], layout: Layout, process: str) -> str | None:
    """The host path behind container path ``path`` (None when no mount covers it)."""
    for mount in sorted(mounts, key=lambda m: len(m.target), reverse=True):
        target = mount.target.rstrip("/")
        if path == target or path.startswith(target + "/"):
            return mount_source(mount, layout, process) + path[len(target):]
    return None


def _health_argv(service: Service, rewrite: Rewriter, python: str, redis_port: int | None) -> list[str] | None:
    check = service.healthcheck
    if check is None:
        return None
    if redis_port is not None:  # redis-cli's default server was the container's own: here it is on redis_port
        rewrite.word("redis-cli", f"redis-cli -h {LOOPBACK} -p {redis_port}", "the server's host port")
    if check.kind == "CMD-SHELL":
        return ["sh", "-c", rewrite(check.test[0])]
    argv = [w for word in check.test for w in (rewrite(word).split(" ") if word == "redis-cli" else [rewrite(word)])]
    if argv[0] in ("python", "python3"):
        argv[0] = python
    elif argv[0] == "airship":
        argv[:1] = [python, "-m", "services.cli"]
    return argv


def _check_references(spec: ProcessSpec, names: list[str]) -> None:
    """Fail on a ``<service>:<port>`` the rewrites did not map: the process could not reach it."""
    words = [*spec.argv, *(spec.health or []), *spec.env.values()]
    for name in names:
        pattern = re.compile(rf"(?<![\w.-]){re.escape(name)}:\d+")
        for word in words:
            if pattern.search(word):
                raise ComposeError(f"{spec.name}: '{word}' names {name} on a port that is not published; "
                                   "the harness cannot map it")


def plan(services: Mapping[str, Service], names: list[str], layout: Layout, published: Mapping[tuple[str, int], int],
         free_port: Callable[[], int], python: str = sys.executable) -> list[ProcessSpec]:
    """The processes of ``names`` (compose services, dependencies first). ``published``: (service, container
    port) -> the host port chosen for it; ``free_port`` gives each port variable of each process its own."""
    hosts = Rewriter()
    for (owner, container_port), host_port in published.items():
        hosts.host(f"{owner}:{container_port}", f"{LOOPBACK}:{host_port}")
    redis_port = next((published[(n, p.container_port)] for n in names if is_redis(services[n])
                       for p in services[n].ports), None)
    specs: list[ProcessSpec] = []
    for name in names:
        service = services[name]
        if service.replicas > 1 and service.ports:
            raise ComposeError(f"{name}: {service.replicas} replicas cannot all publish {service.ports[0].host_port}")
        for replica in range(1, service.replicas + 1):
            specs.append(_process(service, replica, layout, hosts.copy(), published, free_port, python, redis_port))
    for spec in specs:
        _check_references(spec, list(services))
    return specs


def _process(service: Service, replica: int, layout: Layout, rewrite: Rewriter,
             published: Mapping[tuple[str, int], int], free_port: Callable[[], int], python: str,
             redis_port: int | None) -> ProcessSpec:
    name = f"{service.name}-{replica}"
    ports: dict[str, int] = {}
    files: dict[str, str] = {}
    env: dict[str, str] = {}
    chosen: dict[str, int] = {}
    port_vars: list[tuple[str, str, int]] = []
    for key, value in service.environment.items():  # variables: host names, port variables, mounted paths
        if key.endswith("_PORT") and value.isdigit() and int(value) != 0:
            port_number = chosen.setdefault(value, free_port())
            ports[key] = port_number
            env[key] = str(port_number)
            port_vars.append((key, value, port_number))
            rewrite.applied[f"{key}={value} -> {port_number} (replicas share this host)"] = None
        elif value.startswith("/") and (host_path := map_path(value, service.mounts, layout, name)) is not None:
            env[key] = host_path  # a mounted container path: the host directory behind the mount
            rewrite.applied[f"{key}={value} -> {host_path} (mounted path)"] = None
        else:
            env[key] = rewrite(value)
    for key, value, port_number in port_vars:  # the same port written in the command or health check
        rewrite.token(value, str(port_number), key)
    for port in service.ports:
        host_port = published[(service.name, port.container_port)]
        ports[f"{port.container_port}/tcp"] = host_port
        rewrite.token(str(port.container_port), str(host_port), "published port")
    listen = {p.host_ip for p in service.ports}
    if len(listen) == 1 and (address := listen.pop()) != ANY_ADDRESS:
        rewrite.token(ANY_ADDRESS, address, "compose publishes only there")
    for mount in sorted(service.mounts, key=lambda m: len(m.target), reverse=True):
        rewrite.path(mount.target, mount_source(mount, layout, name), f"{mount.kind} mount")
    command = [rewrite(w) for w in service.command]
    if is_redis(service):
        argv = _redis_argv(service, command, layout, name, ports, rewrite, files)
    elif command[:1] == ["airship"]:
        argv = [python, "-m", "services.cli", *command[1:]]
    elif not command:
        raise ComposeError(f"{service.name}: no command (the image's default command is not known here)")
    else:
        argv = command
    health = _health_argv(service, rewrite, python, redis_port if is_redis(service) else None)
    check = service.healthcheck
    return ProcessSpec(
        name=name, service=service.name, replica=replica, argv=argv, env={**base_env(layout), **env},
        cwd=str(layout.tmp(name)), log=str(layout.log(name)), health=health,
        health_timeout_s=check.timeout_s if check else 5.0, stop_grace_s=service.stop_grace_s,
        stop_signal=service.stop_signal, ports=ports, rewrites=list(rewrite.applied), files=files)


def _redis_argv(service: Service, command: list[str], layout: Layout, name: str, ports: Mapping[str, int],
                rewrite: Rewriter, files: dict[str, str]) -> list[str]:
    """``redis-server <conf>`` with what a host run needs: port and bind on the command line, and the conf's
    container paths (``dir``, ``aclfile``, ...) mapped through the mounts. Redis acts on ``dir`` while it reads
    the file, before command-line options apply, so the server reads a host copy of the shipped conf made at
    each start with only those lines changed (a comment on each names the original)."""
    try:
        exe = redis_binary.require()
    except redis_binary.RedisBinaryError as e:
        raise ComposeError(str(e)) from None
    argv = [exe]
    for word in command[1:]:
        if not word.endswith(".conf"):
            argv.append(word)
            continue
        conf = Path(word)
        host_conf = layout.dir / "config" / name / conf.name
        lines = []
        for line in conf.read_text().splitlines():
            words = line.split(None, 1)
            if len(words) == 2 and words[0].lower() in REDIS_PATH_DIRECTIVES:
                value = words[1].strip().strip('"').strip("'")
                if value.startswith("/"):
                    host = (map_path(value, service.mounts, layout, name)
                            or str(layout.dir / "rootfs" / name / value[1:]))
                    if host != value:
                        lines.append(f"# {line}    (airship stack: the container path, mapped to this host)")
                        line = f'{words[0]} "{host}"'
                        rewrite.applied[f"{conf.name}: {words[0]} {value} -> {host}"] = None
            lines.append(line)
        header = f"# Made by `airship stack up` from {conf} at each start: edit that file, not this one.\n"
        files[str(host_conf)] = header + "\n".join(lines) + "\n"
        argv.append(str(host_conf))
        rewrite.applied[f"redis-server reads {host_conf} (a copy of {conf} with its paths mapped)"] = None
    if service.ports:
        overrides = ["--port", str(ports[f"{service.ports[0].container_port}/tcp"]), "--bind", LOOPBACK]
        argv += overrides
        rewrite.applied[f"redis-server {' '.join(overrides)}"] = None
    return argv
