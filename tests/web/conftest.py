"""Fixtures of the web tests: a whole stack (worker, projector, gateway and the bots process as real processes
on the test Redis) and headless Chromium from Debian's packages, driven by Playwright through its executable
(``make test`` installs it with infra/dev/ensure-chromium.sh)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

import tests.pipeline.nim  # noqa: F401  (registers nim, which the stack's processes load)
from services.pipeline.redis_backend import connect
from tests.gateway.stack import GatewayStack, running_stack, stack_settings
from tests.pipeline.redis_fixtures import redis_url
from tests.pipeline.redis_fixtures import stop as stop_process

__all__ = ["redis_url"]
ROOT = Path(__file__).resolve().parents[2]
ARTEFACTS = Path(os.environ.get("AIRSHIP_TEST_ARTEFACTS") or ROOT / "test-artefacts") / "screenshots"
SCREENSHOTS = ROOT / "docs" / "screenshots"
FLAG_RPS = 2  # the stack's rate of bot requests per address (bursts of 40): these tests flag more than people do


def chromium_path() -> str:
    found = os.environ.get("AIRSHIP_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        pytest.fail("no chromium: run 'bash infra/dev/ensure-chromium.sh' (make test does)")
    return found


def spawn_bots(url: str, *flags: str) -> subprocess.Popen[bytes]:
    """``airship bots`` against the gateway at ``url``: a client of it, like any other."""
    cmd = [sys.executable, "-m", "services.cli", "--log-level", "warning", "bots", "--url", url, "--poll-s", "0.2",
           *flags]
    env = {k: v for k, v in os.environ.items() if not k.startswith("AIRSHIP_REDIS")}  # (no Redis for it)
    return subprocess.Popen(cmd, cwd=ROOT, env=env)


@pytest.fixture(scope="module")
def web_stack(redis_url: str) -> Iterator[GatewayStack]:
    """Worker, projector, gateway and the bots process on a fresh prefix."""
    with running_stack(stack_settings(redis_url, "web"), AIRSHIP_GATEWAY_BOT_FLAG_RPS=str(FLAG_RPS)) as stack:
        bots = spawn_bots(stack.url)
        try:
            yield stack
        finally:
            stop_process(bots, timeout_s=20)


@pytest.fixture(scope="module")
def admin(web_stack: GatewayStack) -> Iterator[redis.Redis]:
    """Redis as an operator sees it: the truth the tests compare the pages with."""
    conn = connect(web_stack.settings.redis_url)
    yield conn
    conn.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox", "--disable-gpu"])
        yield chromium
        chromium.close()


def save_screenshot(page: object, name: str, docs: bool = True) -> Path:
    """A full-page screenshot under the test artefacts (kept by CI) and, when missing there or when
    AIRSHIP_UPDATE_SCREENSHOTS=1, under docs/screenshots (shown in the README)."""
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTEFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)  # type: ignore[attr-defined]
    shown = SCREENSHOTS / f"{name}.png"
    if docs and (not shown.exists() or os.environ.get("AIRSHIP_UPDATE_SCREENSHOTS") == "1"):
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, shown)
    return path
