"""Starting ``airship gateway`` as its own process and waiting until it answers ``/readyz`` (the tests' stack
harness and ``airship bench gateway`` both run it this way)."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO

import httpx

from services.settings import Settings

ROOT = Path(__file__).resolve().parents[2]


def spawn_gateway(settings: Settings, port: int, env: Mapping[str, str] | None = None,
                  log_level: str = "warning", stderr: IO[bytes] | None = None,
                  nofile: int | None = None) -> subprocess.Popen[bytes]:
    """``airship gateway`` on 127.0.0.1:``port`` with the Redis URL, prefix and partitions of ``settings``
    (``stderr``: where its logs go; by default, this process's stderr; ``nofile``: its file-descriptor limit,
    soft and hard, from which its connection caps are derived)."""
    cmd = [sys.executable, "-m", "services.cli", "--log-level", log_level, "gateway", "--redis", settings.redis_url,
           "--prefix", settings.key_prefix, "--partitions", str(settings.partitions), "--port", str(port)]

    def limit_fds() -> None:
        if nofile is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    return subprocess.Popen(cmd, env={**os.environ, **(env or {})}, cwd=ROOT, stderr=stderr,
                            preexec_fn=limit_fds if nofile is not None else None)


def wait_ready(url: str, proc: subprocess.Popen[bytes], timeout_s: float = 60.0) -> None:
    """Return once ``url``/readyz answers 200; raise if the process exits or the time runs out."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the gateway exited with {proc.returncode}")
        try:
            if httpx.get(f"{url}/readyz", timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"the gateway at {url} was not ready within {timeout_s:g}s")
