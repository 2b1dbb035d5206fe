"""A private ``redis-server`` for chaos runs that restart Redis: its own port and directory, AOF with
``appendfsync always`` (an acknowledged write is on disk before the reply), killed and started again on
the same directory. The shared server of other users is never touched."""

from __future__ import annotations

import signal
import socket
import subprocess
import time
from pathlib import Path

import redis

from services import redis_binary


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class OwnRedis:
    def __init__(self, directory: Path, port: int | None = None) -> None:
        self.exe = redis_binary.require()
        self.dir = directory
        self.port = port or free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.restarts = 0

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout_s: float = 30.0) -> None:
        cmd = [self.exe, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.dir),
               "--appendonly", "yes", "--appendfsync", "always", "--save", "", "--daemonize", "no",
               "--logfile", str(self.dir / "redis.log")]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.wait_ready(timeout_s)

    def wait_ready(self, timeout_s: float) -> None:
        """Until PING answers (a server still loading its AOF answers with an error)."""
        deadline = time.monotonic() + timeout_s
        r = redis.Redis(port=self.port, socket_connect_timeout=0.5)
        try:
            while True:
                try:
                    if r.ping():
                        return
                except redis.RedisError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"redis-server on port {self.port} did not come up in {timeout_s}s")
                time.sleep(0.05)
        finally:
            r.close()

    def kill(self) -> None:
        """SIGKILL: no shutdown, no final save; only what AOF already holds survives."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def restart(self, down_s: float = 0.3) -> None:
        self.kill()
        time.sleep(down_s)
        self.start()
        self.restarts += 1

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
