"""Reading ``docker-compose.yml`` the way docker compose does, for the parts a host run needs.

YAML anchors and merge keys (``x-airship``, ``x-settings``) are resolved by ``yaml.safe_load``; variables are
then interpolated as compose does (``$$`` is a literal ``$``; ``$VAR``, ``${VAR}``, ``${VAR:-default}``,
``${VAR-default}``, ``${VAR:?error}`` come from the environment of the caller). Only what the file uses is
modelled; a key the harness cannot honour on a host is listed in :attr:`Service.unsupported`.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "docker-compose.yml"
AIRSHIP_DOCKERFILE = "infra/Dockerfile"

# Keys the harness reproduces (or that mean nothing without containers and are reported as such).
HONOURED = {"image", "build", "init", "command", "environment", "deploy", "healthcheck", "ports", "volumes", "tmpfs",
            "depends_on", "stop_grace_period", "stop_signal"}

_VARIABLE = re.compile(r"\$(?:(\$)|\{([^}]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(us|ms|s|m|h)")
_UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


class ComposeError(ValueError):
    """The compose file asks for something the harness cannot read or run."""


def interpolate(text: str, env: Mapping[str, str]) -> str:
    """Compose's variable substitution on one string."""

    def one(match: re.Match[str]) -> str:
        if match.group(1):
            return "$"
        name = match.group(3)
        if name is not None:
            return env.get(name, "")
        expr = match.group(2)
        for op in (":-", "-", ":?", "?"):
            if op in expr:
                name, rest = expr.split(op, 1)
                value = env.get(name)
                missing = value is None or (op.startswith(":") and value == "")
                if not missing:
                    return value or ""
                if op.endswith("?"):
                    raise ComposeError(f"${{{expr}}}: {rest or name + ' is required'}")
                return rest
        return env.get(expr, "")

    return _VARIABLE.sub(one, text)


def _interpolate_all(value: Any, env: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        return interpolate(value, env)
    if isinstance(value, list):
        return [_interpolate_all(v, env) for v in value]
    if isinstance(value, dict):
        return {k: _interpolate_all(v, env) for k, v in value.items()}
    return value


def duration_s(text: str | int | float | None, default: float) -> float:
    """A compose duration (``30s``, ``1m30s``, ``500ms``) in seconds."""
    if text is None:
        return default
    if isinstance(text, int | float):
        return float(text)
    parts = _DURATION.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text.strip():
        raise ComposeError(f"not a duration: {text!r}")
    return sum(float(n) * _UNITS[u] for n, u in parts)


@dataclass(frozen=True)
class Port:
    """A published port: ``host_ip:host_port:container_port``."""

    host_ip: str
    host_port: int
    container_port: int


@dataclass(frozen=True)
class Mount:
    """A container path and what backs it: ``bind`` (a host path), ``volume`` (a named volume) or ``tmpfs``."""

    target: str
    kind: str
    source: str = ""
    read_only: bool = False


@dataclass(frozen=True)
class Healthcheck:
    kind: str  # CMD or CMD-SHELL
    test: tuple[str, ...]  # argv (CMD) or one shell string (CMD-SHELL)
    interval_s: float = 30.0
    timeout_s: float = 30.0
    retries: int = 3
    start_period_s: float = 0.0


@dataclass(frozen=True)
class Service:
    name: str
    image: str
    airship: bool  # the airship image (image airship:* or built from infra/Dockerfile)
    command: tuple[str, ...]
    environment: Mapping[str, str]
    replicas: int
    healthcheck: Healthcheck | None
    ports: tuple[Port, ...]
    mounts: tuple[Mount, ...]
    depends_on: Mapping[str, str]  # service -> condition
    stop_grace_s: float
    stop_signal: str
    unsupported: tuple[str, ...] = field(default=())  # keys not reproduced on a host (read_only, limits, ...)


def _environment(raw: Any, env: Mapping[str, str]) -> dict[str, str]:
    """Dict or ``KEY=value`` list; a key without a value takes the caller's value (absent: not set)."""
    items: list[tuple[str, Any]]
    if raw is None:
        items = []
    elif isinstance(raw, dict):
        items = list(raw.items())
    else:
        items = [(e.split("=", 1)[0], e.split("=", 1)[1] if "=" in e else None) for e in raw]
    out: dict[str, str] = {}
    for key, value in items:
        if value is None:
            if key in env:
                out[key] = env[key]
        elif isinstance(value, bool):
            out[key] = "true" if value else "false"
        else:
            out[key] = str(value)
    return out


def _ports(raw: list[Any]) -> tuple[Port, ...]:
    ports = []
    for entry in raw:
        if isinstance(entry, dict):
            target = int(entry["target"])
            ports.append(Port(str(entry.get("host_ip", "0.0.0.0")), int(entry.get("published") or target), target))
            continue
        text = str(entry).split("/", 1)[0]
        parts = text.rsplit(":", 2)
        if len(parts) == 3:
            ports.append(Port(parts[0] or "0.0.0.0", int(parts[1]), int(parts[2])))
        elif len(parts) == 2:
            ports.append(Port("0.0.0.0", int(parts[0]), int(parts[1])))
        else:
            ports.append(Port("0.0.0.0", int(parts[0]), int(parts[0])))
    return tuple(ports)


def _mounts(service: Mapping[str, Any], named: Mapping[str, Any], project_dir: Path) -> tuple[Mount, ...]:
    mounts = []
    for entry in service.get("volumes") or []:
        if isinstance(entry, dict):
            source, target = str(entry.get("source", "")), str(entry["target"])
            read_only = bool(entry.get("read_only"))
        else:
            parts = str(entry).split(":")
            source, target = (parts[0], parts[1]) if len(parts) > 1 else ("", parts[0])
            read_only = len(parts) > 2 and "ro" in parts[2].split(",")
        if source.startswith((".", "/", "~")):
            path = (project_dir / os.path.expanduser(source)).resolve()
            mounts.append(Mount(target, "bind", str(path), read_only))
        elif source:
            if source not in named:
                raise ComposeError(f"{service}: undeclared volume {source}")
            mounts.append(Mount(target, "volume", source, read_only))
        else:
            mounts.append(Mount(target, "volume", f"anonymous{target.replace('/', '-')}", read_only))
    tmpfs = service.get("tmpfs") or []
    for target in [tmpfs] if isinstance(tmpfs, str) else tmpfs:
        mounts.append(Mount(str(target).split(":", 1)[0], "tmpfs"))
    return tuple(mounts)


def _healthcheck(raw: Mapping[str, Any] | None) -> Healthcheck | None:
    if not raw or raw.get("disable"):
        return None
    test = raw.get("test")
    if isinstance(test, str):
        test = ["CMD-SHELL", test]
    if not test or test[0] == "NONE":
        return None
    if test[0] not in ("CMD", "CMD-SHELL"):
        raise ComposeError(f"health check test must start with CMD or CMD-SHELL: {test}")
    kind = str(test[0])
    words = tuple(str(w) for w in test[1:])
    if kind == "CMD-SHELL":
        words = (" ".join(words),)
    return Healthcheck(kind, words, duration_s(raw.get("interval"), 30.0), duration_s(raw.get("timeout"), 30.0),
                       int(raw.get("retries", 3)), duration_s(raw.get("start_period"), 0.0))


def _service(name: str, raw: Mapping[str, Any], named: Mapping[str, Any], project_dir: Path,
             env: Mapping[str, str]) -> Service:
    image = str(raw.get("image", ""))
    build = raw.get("build")
    dockerfile = build.get("dockerfile", "Dockerfile") if isinstance(build, dict) else None
    airship = image.startswith("airship") or dockerfile == AIRSHIP_DOCKERFILE
    command = raw.get("command") or []
    if isinstance(command, str):
        command = shlex.split(command)
    depends = raw.get("depends_on") or {}
    if isinstance(depends, list):
        depends = {d: {"condition": "service_started"} for d in depends}
    deploy = raw.get("deploy") or {}
    unsupported = sorted(k for k in raw if k not in HONOURED)
    if (deploy.get("resources") or {}).get("limits"):
        unsupported.append("deploy.resources.limits")
    return Service(
        name=name,
        image=image,
        airship=airship,
        command=tuple(str(w) for w in command),
        environment=_environment(raw.get("environment"), env),
        replicas=int(deploy.get("replicas", raw.get("scale", 1))),
        healthcheck=_healthcheck(raw.get("healthcheck")),
        ports=_ports(raw.get("ports") or []),
        mounts=_mounts(raw, named, project_dir),
        depends_on={d: str((how or {}).get("condition", "service_started")) for d, how in depends.items()},
        stop_grace_s=duration_s(raw.get("stop_grace_period"), 10.0),
        stop_signal=str(raw.get("stop_signal", "SIGTERM")),
        unsupported=tuple(unsupported),
    )


def load(path: Path = COMPOSE_FILE, env: Mapping[str, str] | None = None) -> dict[str, Service]:
    """Every service of the compose file at ``path``, interpolated with ``env`` (default: this process's)."""
    env = os.environ if env is None else env
    raw = yaml.safe_load(path.read_text())
    if not isinstance(raw, dict) or not isinstance(raw.get("services"), dict):
        raise ComposeError(f"{path}: no services")
    raw = _interpolate_all(raw, env)
    named = raw.get("volumes") or {}
    return {name: _service(name, svc or {}, named, path.parent, env) for name, svc in raw["services"].items()}


def runnable(services: Mapping[str, Service]) -> dict[str, Service]:
    """The services the harness runs: the airship ones and Redis (``image: redis:*``)."""
    return {n: s for n, s in services.items() if s.airship or is_redis(s)}


def is_redis(service: Service) -> bool:
    return service.image.split("/")[-1].startswith("redis:") and bool(service.command) \
        and service.command[0] == "redis-server"


def with_dependencies(services: Mapping[str, Service], wanted: list[str]) -> list[str]:
    """``wanted`` and everything it depends on (as ``docker compose up SERVICE`` starts them), in file order."""
    chosen: set[str] = set()
    todo = list(wanted)
    while todo:
        name = todo.pop()
        if name in chosen:
            continue
        if name not in services:
            raise ComposeError(f"no service {name!r} the harness can run; have {', '.join(services)}")
        chosen.add(name)
        todo.extend(services[name].depends_on)
    return [n for n in services if n in chosen]


def levels(services: Mapping[str, Service], names: list[str]) -> list[list[str]]:
    """``names`` in start order: each level depends only on earlier ones."""
    done: set[str] = set()
    out: list[list[str]] = []
    rest = list(names)
    while rest:
        level = [n for n in rest if all(d in done or d not in names for d in services[n].depends_on)]
        if not level:
            raise ComposeError(f"depends_on has a cycle among {', '.join(rest)}")
        out.append(level)
        done.update(level)
        rest = [n for n in rest if n not in done]
    return out
