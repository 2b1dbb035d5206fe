"""An in-process service with its worker and projector running in threads, as bots and chat see it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from services.pipeline.memory import MemoryBackend
from services.pipeline.projector import Projector
from services.pipeline.worker import Worker, WorkerSettings


@contextmanager
def running_service(partitions: int = 2, block_ms: int = 20) -> Iterator[MemoryBackend]:
    backend = MemoryBackend(partitions=partitions)
    worker = Worker(backend.bus, backend.store, "w", WorkerSettings(block_ms=block_ms))
    projector = Projector(backend.store, backend.views, "p", block_ms=block_ms)
    threads = [threading.Thread(target=worker.run, daemon=True), threading.Thread(target=projector.run, daemon=True)]
    for t in threads:
        t.start()
    try:
        yield backend
    finally:
        worker.stop()
        projector.stop()
        for t in threads:
            t.join(5)
