"""What the service loops report: a heartbeat on every pass (idle ones too), and Redis errors with their
message in the logs (redis-py 8's ``repr`` of an error drops the server's message)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import redis

from services.logs import error_text
from services.pipeline.memory import MemoryBackend
from services.pipeline.projector import Projector
from services.pipeline.worker import Worker, WorkerSettings

ROOT = Path(__file__).resolve().parents[2]
NOPERM = "NOPERM User worker has no permissions to run the 'xreadgroup' command"


def test_every_pass_of_the_worker_and_projector_beats_even_when_idle() -> None:
    backend = MemoryBackend(partitions=2)
    beats = [0, 0]
    worker = Worker(backend.bus, backend.store, "w", WorkerSettings(block_ms=10, claim_every_s=0))
    projector = Projector(backend.store, backend.views, "p", block_ms=10)
    worker.heartbeat = lambda: beats.__setitem__(0, beats[0] + 1)
    projector.heartbeat = lambda: beats.__setitem__(1, beats[1] + 1)
    for _ in range(3):
        assert worker.run_once(block_ms=10) == 0
        assert projector.run_once(block_ms=10, claim=True) == 0
    assert beats[0] >= 3 and beats[1] >= 3


def test_a_loop_that_keeps_failing_still_beats() -> None:
    backend = MemoryBackend(partitions=2)

    def refuse(*_: object) -> list[object]:
        raise redis.exceptions.NoPermissionError(NOPERM)

    backend.bus.read = refuse  # type: ignore[method-assign]
    beats: list[int] = []
    worker = Worker(backend.bus, backend.store, "w", WorkerSettings(block_ms=10, claim_every_s=3600))
    worker.heartbeat = lambda: beats.append(1)
    deadline = time.monotonic() + 5
    worker.run(should_stop=lambda: len(beats) >= 3 or time.monotonic() > deadline)
    assert len(beats) >= 3


def test_error_text_keeps_the_message_of_a_redis_error() -> None:
    text = error_text(redis.exceptions.NoPermissionError(NOPERM))
    assert NOPERM in text and "NoPermissionError" in text
    assert error_text(redis.ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")) \
        .endswith("Connection refused.")
    assert error_text(TimeoutError()) == "TimeoutError"


def test_no_service_loop_logs_the_repr_of_an_error() -> None:
    """``error=repr(e)`` logs ``server:ResponseError`` for a refused command with redis-py 8."""
    offenders = [f"{path.relative_to(ROOT)}:{n}" for path in sorted((ROOT / "services").rglob("*.py"))
                 if path.parent.name in ("pipeline", "services")
                 for n, line in enumerate(path.read_text().splitlines(), 1) if re.search(r"=repr\(e\)|\{e!r\}", line)]
    assert not offenders, offenders
