"""Liveness and readiness over HTTP for the long-running processes (worker, projector).

- ``GET /healthz`` (liveness): 200 while the process loop has called :meth:`Health.beat` within
  ``stale_after_s``; 503 once it has not (a hung loop: let the orchestrator restart the process).
- ``GET /readyz`` (readiness): 200 when the readiness check passes, else 503 with the reason as the
  body (e.g. Redis unreachable, consumer group missing).

The server is stdlib ``http.server`` in a daemon thread. Probe from a container health check with
``python -m services.health ready`` (or ``live``); it reads ``AIRSHIP_HEALTH_PORT`` (default 8081).
"""

from __future__ import annotations

import os
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol

DEFAULT_HEALTH_PORT = 8081

Check = Callable[[], str | None]
"""A readiness check: None when ready, else the reason it is not."""


class Health:
    """The state both endpoints report: the loop's last beat and the readiness check."""

    def __init__(self, check: Check | None = None, stale_after_s: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.check = check
        self.stale_after_s = stale_after_s
        self._clock = clock
        self._last_beat = clock()

    def beat(self) -> None:
        """Called by the process loop on every pass (after each read, even an empty one)."""
        self._last_beat = self._clock()

    def live(self) -> tuple[bool, str]:
        silent_s = self._clock() - self._last_beat
        if silent_s > self.stale_after_s:
            return False, f"the loop has not ticked for {silent_s:.0f}s (limit {self.stale_after_s:.0f}s)"
        return True, "ok"

    def ready(self) -> tuple[bool, str]:
        alive, reason = self.live()
        if not alive:
            return False, reason
        if self.check is None:
            return True, "ok"
        try:
            problem = self.check()
        except Exception as e:  # a failing check means not ready, never a crashed probe
            problem = f"readiness check failed: {type(e).__name__}: {e}"
        return (False, problem) if problem else (True, "ok")


def _handler(health: Health) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            if path == "/healthz":
                ok, reason = health.live()
            elif path == "/readyz":
                ok, reason = health.ready()
            else:
                self._reply(404, "not found: try /healthz or /readyz")
                return
            self._reply(200 if ok else 503, reason)

        def _reply(self, status: int, text: str) -> None:
            body = (text + "\n").encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            return None  # probes every few seconds would drown the structured logs

    return Handler


class HealthServer:
    """Serves ``health`` on ``port`` (0 picks a free one: see :attr:`port`) in a daemon thread."""

    def __init__(self, health: Health, port: int, host: str = "0.0.0.0") -> None:
        self.health = health
        self._server = ThreadingHTTPServer((host, port), _handler(health))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="health", daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def start(self) -> HealthServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def serve(health: Health, port: int) -> HealthServer | None:
    """Start the endpoints on ``port`` (0 disables, like ``metrics.serve``)."""
    return HealthServer(health, port).start() if port else None


class RedisLike(Protocol):
    def ping(self) -> Any: ...

    def xinfo_groups(self, name: str) -> Any: ...


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def redis_group_check(client: RedisLike, streams: Sequence[str], group: str) -> Check:
    """Ready when Redis answers PING and every stream in ``streams`` has consumer group ``group``
    (XINFO GROUPS). The worker passes its partitions' command streams and ``workers``; the projector
    the feeds and ``projectors``."""

    def check() -> str | None:
        try:
            client.ping()
        except Exception as e:
            return f"redis does not answer: {e}"
        for stream in streams:
            try:
                groups = client.xinfo_groups(stream)
            except Exception as e:
                return f"cannot read the consumer groups of {stream}: {e}"
            names = {_text(g.get("name", g.get(b"name", ""))) for g in groups}
            if group not in names:
                return f"consumer group '{group}' is missing on {stream}"
        return None

    return check


def probe(what: str = "ready", port: int | None = None, timeout_s: float = 3.0) -> int:
    """Exit status for a container health check: 0 when the endpoint answers 200, else 1."""
    port = port or int(os.environ.get("AIRSHIP_HEALTH_PORT") or DEFAULT_HEALTH_PORT)
    path = {"ready": "/readyz", "live": "/healthz"}[what]
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=timeout_s) as response:
            print(response.read().decode().strip())
            return 0
    except urllib.error.HTTPError as e:
        print(f"{e.code}: {e.read().decode().strip()}", file=sys.stderr)
    except OSError as e:
        print(f"no answer on port {port}: {e}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) > 1 or (args and args[0] not in ("ready", "live")):
        print("usage: python -m services.health [ready|live]", file=sys.stderr)
        sys.exit(2)
    sys.exit(probe(args[0] if args else "ready"))
