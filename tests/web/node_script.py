"""Running a Node.js check script of the web client: JSON in on stdin, JSON out on stdout."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest


def run_node(script: Path, payload: Any, timeout_s: float = 60) -> Any:
    """What ``script`` writes for ``payload``; the test is skipped where Node.js is not installed."""
    node = shutil.which("node")
    if not node:
        pytest.skip("node is not installed: the JavaScript client's checks need Node.js >= 20")
    done = subprocess.run([node, str(script)], input=json.dumps(payload), capture_output=True, text=True,
                          timeout=timeout_s, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
