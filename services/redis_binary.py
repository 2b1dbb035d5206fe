"""Which ``redis-server`` (and ``redis-cli``) the processes airship starts run: ``airship stack``, ``airship
chaos --restart-redis`` / ``--cluster`` and the tests.

The image ships Redis 7.4 (``infra/Dockerfile``, ``docker-compose.yml``, ``k8s/``), and 7.4 is the minimum:
before 7.4.0 a consumer group's ``entries-read`` is lost over an AOF reload (redis/redis#12898), so the lag
``XINFO GROUPS`` reports, which KEDA scales on, reads thousands on an idle stack after every restart. Looked
for, in order: ``$AIRSHIP_REDIS_SERVER`` (a path; ``redis-cli`` beside it), the install of
``infra/dev/install-redis.sh`` (``$AIRSHIP_REDIS_HOME``, default ``~/.cache/airship/redis-7.4``), ``PATH``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from functools import cache
from pathlib import Path

MIN_VERSION = (7, 4, 0)
INSTALL_HINT = ("bash infra/dev/install-redis.sh (make test runs it), or set AIRSHIP_REDIS_SERVER to a "
                "redis-server >= 7.4")


class RedisBinaryError(RuntimeError):
    """No usable redis-server (missing, or older than :data:`MIN_VERSION`)."""


def home() -> Path:
    """Where ``infra/dev/install-redis.sh`` installs (its ``bin/`` holds the wrappers)."""
    if os.environ.get("AIRSHIP_REDIS_HOME"):
        return Path(os.environ["AIRSHIP_REDIS_HOME"])
    cache_dir = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache_dir / "airship" / "redis-7.4"


def find(name: str = "redis-server") -> str | None:
    """The path of ``name`` (``redis-server``, ``redis-cli``, ``redis-check-aof``) by the order above, or None."""
    explicit = os.environ.get("AIRSHIP_REDIS_SERVER")
    if explicit:
        path = Path(explicit) if name == "redis-server" else Path(explicit).with_name(name)
        return str(path) if path.exists() else None
    installed = home() / "bin" / name
    if installed.exists():
        return str(installed)
    return shutil.which(name)


@cache
def version_of(exe: str) -> tuple[int, int, int]:
    """``redis-server --version``'s ``v=X.Y.Z``."""
    out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30).stdout
    m = re.search(r"v=(\d+)\.(\d+)\.(\d+)", out)
    if m is None:
        raise RedisBinaryError(f"{exe} --version said {out.strip()!r}, not a Redis version")
    return int(m[1]), int(m[2]), int(m[3])


def require(name: str = "redis-server") -> str:
    """The path of ``name``, checked to be Redis >= 7.4 (``redis-server``'s version stands for its siblings')."""
    exe = find(name)
    server = find("redis-server")
    if exe is None or server is None:
        raise RedisBinaryError(f"{name} is not installed: {INSTALL_HINT}")
    found = version_of(server)
    if found < MIN_VERSION:
        raise RedisBinaryError(f"{server} is Redis {'.'.join(map(str, found))}; airship needs 7.4 or newer (before "
                               f"7.4 the lag of a consumer group is wrong after every restart): {INSTALL_HINT}")
    return exe


def server_version_ok(info_version: str) -> bool:
    """Whether a running server's ``INFO server`` ``redis_version`` is 7.4 or newer."""
    parts = [int(p) for p in re.findall(r"\d+", info_version)[:3]]
    return tuple(parts + [0] * (3 - len(parts))) >= MIN_VERSION
