"""The worker and projector processes serve /healthz and /readyz on AIRSHIP_HEALTH_PORT."""

from __future__ import annotations

import socket
import subprocess
import urllib.error
import urllib.request

import pytest

from services.settings import Settings
from tests.pipeline.redis_fixtures import spawn, stop, wait_until

pytestmark = pytest.mark.redis


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def status(port: int, path: str) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=2) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as e:
        return e.code
    except OSError:
        return 0


@pytest.mark.parametrize("kind", ["worker", "projector"])
def test_a_running_process_is_live_and_ready(redis_settings: Settings, procs: list[subprocess.Popen[bytes]],
                                             kind: str) -> None:
    port = free_port()
    proc = spawn(redis_settings, kind, AIRSHIP_HEALTH_PORT=str(port))
    procs.append(proc)
    wait_until(lambda: status(port, "/readyz") == 200, timeout_s=20)
    assert status(port, "/healthz") == 200
    assert status(port, "/nope") == 404
    assert stop(proc) == 0
    assert status(port, "/healthz") == 0, "the endpoint goes away with the process"
