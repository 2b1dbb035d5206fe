"""Worker and projector processes of a chaos run, and the killer that SIGKILLs a random worker every few
seconds and starts a fresh one in its place."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from services.settings import Settings

ROOT = Path(__file__).resolve().parents[2]


class Fleet:
    """K worker processes and one projector process on the run's prefix; their stderr goes to files in
    ``log_dir`` (scanned at the end for leaked credentials)."""

    def __init__(self, settings: Settings, workers: int, log_dir: Path, env: dict[str, str] | None = None) -> None:
        self.settings = settings
        self.log_dir = log_dir
        self.env = {**os.environ, "AIRSHIP_BLOCK_MS": str(settings.block_ms),
                    "AIRSHIP_CLAIM_IDLE_MS": str(settings.claim_idle_ms),
                    "AIRSHIP_CLAIM_EVERY_S": str(settings.claim_every_s),
                    "AIRSHIP_MAX_DELIVERIES": str(settings.max_deliveries), **(env or {})}
        self.env.pop("AIRSHIP_FAULT", None)
        self._lock = threading.Lock()
        self._generation = 0
        self.workers: list[subprocess.Popen[bytes]] = [self._spawn("worker", i) for i in range(workers)]
        self.projector = self._spawn("projector", 0)
        self.retired: list[subprocess.Popen[bytes]] = []
        self.kills = 0

    def _spawn(self, kind: str, index: int) -> subprocess.Popen[bytes]:
        self._generation += 1
        name = f"chaos-{kind}-{index}-g{self._generation}"
        s = self.settings
        cmd = [sys.executable, "-m", "services.cli", "--log-level", "info", kind, "--redis", s.redis_url,
               "--prefix", s.key_prefix, "--partitions", str(s.partitions), "--consumer", name]
        with (self.log_dir / f"{name}.log").open("wb") as err:
            return subprocess.Popen(cmd, env=self.env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err)

    def kill_random_worker(self, rng: random.Random) -> int:
        """SIGKILL one worker at random and start a fresh one in its place; returns its index."""
        with self._lock:
            index = rng.randrange(len(self.workers))
            victim = self.workers[index]
            victim.send_signal(signal.SIGKILL)
            victim.wait()
            self.retired.append(victim)
            self.workers[index] = self._spawn("worker", index)
            self.kills += 1
            return index

    @contextmanager
    def held(self) -> Iterator[None]:
        """No worker is killed or started meanwhile (while Redis restarts, a new worker could not start)."""
        with self._lock:
            yield

    def crashed(self) -> list[int]:
        """Exit codes of services that ended by themselves (not killed by the run)."""
        with self._lock:
            return [p.returncode for p in [*self.workers, self.projector] if p.poll() is not None]

    def stop(self, timeout_s: float = 15.0) -> None:
        with self._lock:
            procs = [*self.workers, self.projector]
            for proc in procs:
                if proc.poll() is None:
                    proc.send_signal(signal.SIGTERM)
            for proc in procs:
                try:
                    proc.wait(timeout=timeout_s)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()

    def log_files(self) -> list[Path]:
        return sorted(self.log_dir.glob("chaos-*.log"))


class Killer(threading.Thread):
    """Every ``every_s`` (jittered between half and one and a half times), one worker dies."""

    def __init__(self, fleet: Fleet, every_s: float, seed: int) -> None:
        super().__init__(name="chaos-killer", daemon=True)
        self.fleet = fleet
        self.every_s = every_s
        self.rng = random.Random(seed)
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.wait(self.every_s * self.rng.uniform(0.5, 1.5)):
            self.fleet.kill_random_worker(self.rng)

    def stop(self) -> None:
        self.stopping.set()
        self.join()
