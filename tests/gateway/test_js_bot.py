"""A Node.js bot (tests/gateway/js/bot.mjs) plays a complete match of every game through a real gateway
stack (Redis prefix, worker, projector and gateway as processes), knowing nothing but docs/gateway.md.

The bot takes every seat over HTTP, plays each over its own WebSocket and over HTTP in turn, and checks the
contract as it goes: a socket killed mid-match and resumed with ``after_version`` (no view twice, versions
increasing, events without gap), a command re-sent with a used idempotency key (same answer), 202 pending
answers polled to their result, rejections answered by choosing again, and the finished match's summary,
public view and log. It prints a JSON summary as its last line and exits 0 only when every check passed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests import registered
from tests.gateway.stack import GatewayStack

JS_DIR = Path(__file__).parent / "js"
BOT_TIMEOUT_S = 150  # the bot's own global timeout; the subprocess gets a little more

pytestmark = [pytest.mark.gateway, pytest.mark.redis]


@pytest.fixture(scope="module")
def node() -> str:
    """The node executable, with the bot's npm dependencies installed (``npm ci``, once)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the JS bot test needs Node.js >= 20 (and npm)")
    if not (JS_DIR / "node_modules" / "ws" / "package.json").exists():
        npm = shutil.which("npm")
        assert npm is not None, "node is installed but npm is not: cannot install the bot's dependencies"
        done = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=JS_DIR, capture_output=True,
                              text=True, timeout=300, check=False)
        assert done.returncode == 0, f"npm ci failed:\n{done.stdout}\n{done.stderr}"
    return node


def run_bot(node: str, url: str, game: str, seats: int, seed: int) -> tuple[int, dict[str, Any], str]:
    """Run one match; its exit code, its JSON summary (the last stdout line) and its stderr."""
    cmd = [node, "bot.mjs", "--url", url, "--game", game, "--seats", str(seats), "--seed", str(seed),
           "--timeout", str(BOT_TIMEOUT_S), "--verbose"]
    done = subprocess.run(cmd, cwd=JS_DIR, capture_output=True, text=True, timeout=BOT_TIMEOUT_S + 30, check=False)
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    assert lines, f"the bot printed no summary (exit {done.returncode}); stderr:\n{done.stderr[-4000:]}"
    summary: dict[str, Any] = json.loads(lines[-1])
    return done.returncode, summary, done.stderr


@pytest.mark.parametrize("game", registered.GAMES)
def test_js_bot_plays_a_whole_match(node: str, gateway_stack: GatewayStack, game: str) -> None:
    seats, seed = registered.stack_seats(game), 11 + registered.GAMES.index(game)
    started = time.monotonic()
    code, summary, stderr = run_bot(node, gateway_stack.url, game, seats, seed)
    took = time.monotonic() - started
    context = f"{game}: exit {code} after {took:.1f}s\nsummary: {json.dumps(summary)}\nstderr tail:\n{stderr[-4000:]}"
    assert code == 0, context
    assert summary["ok"] is True, context
    assert summary["errors"] == [], context
    assert summary["finished"] is True, context
    assert summary["game"] == game and summary["seats"] == seats, context
    assert summary["reconnects"] >= 1, context
    assert summary["idempotent_resend_checked"] >= 1, context
    assert summary["result_get_checked"] >= 1, context
    assert summary["duplicate_or_backward_views"] == 0, context
    assert summary["unexpected_closes"] == 0, context
    assert summary["http_commands"] >= 1 and summary["ws_commands"] >= 1, context
    assert summary["accepted"] >= 1 and summary["version"] >= summary["accepted"], context
    assert summary["covers_checked"] == summary["commands_sent"], context  # each covered by its choice (legal.js)
    assert summary["pending_answers"] >= 1, context  # some commands are posted with wait_s=0
    assert summary["events_received"] >= 1, context
