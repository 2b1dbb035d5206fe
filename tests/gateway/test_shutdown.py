"""``airship gateway`` stopped by SIGTERM while clients wait on it: a long-polled view, a command waiting for
its result (no worker runs, so none comes) and a WebSocket subscription. The process exits at once (well
within uvicorn's 10 s graceful timeout) with 0 and no traceback; the long polls answer as their contract
says when nothing came (204, and 202 with the command's location), the socket is closed with 1001."""

from __future__ import annotations

import json
import signal
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect as ws_connect

from services.gateway.launch import spawn_gateway, wait_ready
from services.pipeline import lobby
from services.pipeline.redis_backend import RedisBackend, connect, delete_prefix
from services.settings import Settings
from tests.gateway.stack import free_port, stack_settings
from tests.pipeline.redis_fixtures import GAME_MODULES, stop

pytestmark = [pytest.mark.redis, pytest.mark.gateway]
EXIT_WITHIN_S = 3.0


def running_match(settings: Settings) -> tuple[str, str]:
    """A nim match with both seats taken (so it runs), set up by the embedded lobby (no worker runs here to decide
    the gateway's match.create and match.join): its id and seat 0's token."""
    backend = RedisBackend(settings)
    try:
        match_id = lobby.create_match(backend.store, "nim", 2).match_id
        tokens = [lobby.join(backend.store, match_id, seat)[1] for seat in range(2)]
    finally:
        backend.close()
    return match_id, tokens[0]


def in_thread(answers: dict[str, Any], name: str, call: Any) -> threading.Thread:
    def run() -> None:
        try:
            answers[name] = call()
        except Exception as e:  # the test reports it
            answers[name] = e

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    return thread


def test_sigterm_wakes_long_polls_closes_sockets_and_exits_promptly(redis_url: str, tmp_path: Path) -> None:
    settings: Settings = stack_settings(redis_url, "term")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    stderr_path = tmp_path / "gateway.stderr"
    with stderr_path.open("wb") as stderr:
        proc = spawn_gateway(settings, port, {"AIRSHIP_GAME_MODULES": GAME_MODULES,
                                              "AIRSHIP_BLOCK_MS": str(settings.block_ms)}, stderr=stderr)
    r = connect(redis_url)
    try:
        wait_ready(url, proc)
        c = httpx.Client(base_url=url, timeout=30)
        match_id, token = running_match(settings)
        answers: dict[str, Any] = {}
        threads = [
            in_thread(answers, "view", lambda: c.get(f"/matches/{match_id}/views/public",
                                                     params={"after_version": 1000, "wait_s": 30})),
            in_thread(answers, "command", lambda: c.post(
                f"/matches/{match_id}/commands", params={"wait_s": 30}, headers={"Authorization": f"Bearer {token}"},
                json={"idempotency_key": "k1", "type": "take", "body": {"n": 1}})),
        ]
        with ws_connect(url.replace("http://", "ws://") + "/ws") as ws:
            ws.send(json.dumps({"kind": "subscribe", "match_id": match_id}))
            assert json.loads(ws.recv(timeout=10))["kind"] == "subscribed"
            deadline = time.monotonic() + 10  # the command is published (then waits for a result): both polls wait
            while not r.hexists(settings.keys.sent(match_id), "0.k1") and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(0.3)
            assert not answers, answers

            sent = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            closed: ConnectionClosed | None = None
            try:
                while True:
                    ws.recv(timeout=EXIT_WITHIN_S)
            except ConnectionClosed as e:
                closed = e
            except TimeoutError:
                pass
            try:
                code = proc.wait(timeout=EXIT_WITHIN_S + 7)
            except Exception:
                code = None
            took_s = time.monotonic() - sent
        for thread in threads:
            thread.join(timeout=5)
    finally:
        stop(proc)
        delete_prefix(r, settings.key_prefix)
        r.close()
    errors = stderr_path.read_text()
    assert code == 0, f"exit code {code} (None: still running 10 s after SIGTERM); stderr:\n{errors[-3000:]}"
    assert took_s < EXIT_WITHIN_S, f"took {took_s:.1f}s to exit; stderr:\n{errors[-3000:]}"
    assert "Traceback" not in errors and "ERROR" not in errors, errors[-3000:]
    assert closed is not None and closed.rcvd is not None and closed.rcvd.code == 1001, closed
    view, command = answers.get("view"), answers.get("command")
    assert isinstance(view, httpx.Response) and view.status_code == 204, view
    assert isinstance(command, httpx.Response) and command.status_code == 202, command
    assert command.json() == {"status": "pending", "idempotency_key": "k1",
                              "location": f"/matches/{match_id}/commands/k1"}
