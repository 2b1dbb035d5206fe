"""A whole stack on loopback for the gateway tests: a fresh key prefix on the test Redis, a worker and a
projector as real processes, and the gateway as a real uvicorn process (``airship gateway``). Clients
reach it only over HTTP and WebSocket, as players would."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field

import httpx
import pytest

from services.pipeline.redis_backend import connect, delete_prefix
from services.settings import Settings
from tests.pipeline.redis_fixtures import GAME_MODULES, ROOT, spawn, stop


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def spawn_gateway(settings: Settings, port: int, **env: str) -> subprocess.Popen[bytes]:
    full_env = {**os.environ, "AIRSHIP_GAME_MODULES": GAME_MODULES, "AIRSHIP_BLOCK_MS": str(settings.block_ms),
                **env}
    cmd = [sys.executable, "-m", "services.cli", "--log-level", "warning", "gateway", "--redis", settings.redis_url,
           "--prefix", settings.key_prefix, "--partitions", str(settings.partitions), "--port", str(port)]
    return subprocess.Popen(cmd, env=full_env, cwd=ROOT)


def wait_ready(url: str, proc: subprocess.Popen[bytes], timeout_s: float = 30.0) -> None:
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
    raise RuntimeError(f"the gateway at {url} was not ready within {timeout_s}s")


@dataclass
class GatewayStack:
    settings: Settings
    url: str
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://") + "/ws"


@pytest.fixture(scope="module")
def gateway_stack(redis_url: str) -> Iterator[GatewayStack]:
    """Worker, projector and gateway processes on a fresh prefix, torn down (and the keys deleted) after."""
    settings = Settings(redis_url=redis_url, key_prefix=f"airship-gw-{uuid.uuid4().hex[:8]}", partitions=4,
                        block_ms=50, claim_every_s=0.5)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    stack = GatewayStack(settings, url)
    stack.procs = [spawn(settings, "worker"), spawn(settings, "projector"), spawn_gateway(settings, port)]
    try:
        wait_ready(url, stack.procs[-1])
        yield stack
    finally:
        for proc in stack.procs:
            stop(proc)
        delete_prefix(connect(redis_url), settings.key_prefix)
