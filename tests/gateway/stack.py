"""A whole stack on loopback for the gateway tests: a fresh key prefix on the test Redis, a worker and a
projector as real processes, and the gateway as a real uvicorn process (``airship gateway``). Clients
reach it only over HTTP and WebSocket, as players would."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from services.gateway import launch
from services.gateway.launch import wait_ready
from services.pipeline.redis_backend import connect, delete_prefix
from services.settings import Settings
from tests.pipeline.redis_fixtures import GAME_MODULES, spawn, stop


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


LIFTED_QUOTAS = {"AIRSHIP_GATEWAY_ADDR_CREATES": "1000000", "AIRSHIP_GATEWAY_ADDR_CREATES_PER_H": "1000000",
                 "AIRSHIP_GATEWAY_PLAYER_CREATES": "1000000", "AIRSHIP_GATEWAY_PLAYER_CREATES_PER_H": "1000000"}
"""The tests create many matches from one address: the creation quotas are lifted unless a test sets them
(tests/gateway/test_fair_share.py tests them)."""


def spawn_gateway(settings: Settings, port: int, nofile: int | None = None, **env: str) -> subprocess.Popen[bytes]:
    return launch.spawn_gateway(settings, port, {"AIRSHIP_GAME_MODULES": GAME_MODULES, **LIFTED_QUOTAS,
                                                 "AIRSHIP_BLOCK_MS": str(settings.block_ms), **env}, nofile=nofile)


@dataclass
class GatewayStack:
    settings: Settings
    url: str
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://") + "/ws"


@contextlib.contextmanager
def running_stack(settings: Settings, nofile: int | None = None, **gateway_env: str) -> Iterator[GatewayStack]:
    """Worker, projector and gateway processes on ``settings``' prefix, stopped (and the keys deleted) after
    (``nofile``: the gateway's file-descriptor limit)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    stack = GatewayStack(settings, url)
    stack.procs = [spawn(settings, "worker"), spawn(settings, "projector"),
                   spawn_gateway(settings, port, nofile, **gateway_env)]
    try:
        wait_ready(url, stack.procs[-1])
        yield stack
    finally:
        for proc in stack.procs:
            stop(proc)
        delete_prefix(connect(settings.redis_url), settings.key_prefix)


@contextlib.contextmanager
def archiving_stack(redis_url: str, archive: Path, tag: str) -> Iterator[GatewayStack]:
    """A running stack whose gateway reads the archive directory ``archive`` (archived at once when asked)."""
    settings = stack_settings(redis_url, tag, archive_dir=str(archive), archive_grace_s=0.0)
    with running_stack(settings, AIRSHIP_ARCHIVE_DIR=str(archive)) as stack:
        yield stack


def stack_settings(redis_url: str, tag: str = "gw", **changes: Any) -> Settings:
    return Settings(redis_url=redis_url, key_prefix=f"airship-{tag}-{uuid.uuid4().hex[:8]}", partitions=4,
                    block_ms=50, claim_every_s=0.5, **changes)


@pytest.fixture(scope="module")
def gateway_stack(redis_url: str) -> Iterator[GatewayStack]:
    """Worker, projector and gateway processes on a fresh prefix, torn down (and the keys deleted) after."""
    with running_stack(stack_settings(redis_url)) as stack:
        yield stack
