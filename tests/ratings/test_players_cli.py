"""``airship players register`` without a gateway to answer: exit 1 and a message, no key printed. (With a real
gateway, tests/ops/test_acl.py registers through it as the ``gateway`` Redis user.)"""

from __future__ import annotations

import subprocess
import sys

from tests.ops.conftest import free_port
from tests.pipeline.redis_fixtures import ROOT


def test_register_without_a_gateway_fails_cleanly() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    done = subprocess.run([sys.executable, "-m", "services.cli", "players", "register", "ann", "--url", url],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 1 and not done.stdout
    assert "does not answer" in done.stderr and url in done.stderr
