"""The embedded in-process backend, ready to play on: one memory backend, one worker, one projector.

``InProcess().client()`` is a trusted client whose every call first runs the worker and the projector
until neither has anything left to do, so a match plays synchronously in one thread (``airship play``
without ``--redis``, tournaments, tests).
"""

from __future__ import annotations

from services.pipeline.direct import DirectClient
from services.pipeline.memory import MemoryBackend
from services.pipeline.projector import Projector
from services.pipeline.worker import Worker


class InProcess:
    """The embedded backend with one worker and one projector, driven by ``pump``."""

    def __init__(self, partitions: int = 16) -> None:
        self.backend = MemoryBackend(partitions)
        self.worker = Worker(self.backend.bus, self.backend.store, "embedded-worker")
        self.projector = Projector(self.backend.store, self.backend.views, "embedded-projector")

    def pump(self) -> None:
        """Run the worker and the projector until neither has anything left to do."""
        while self.worker.run_once(block_ms=0) + self.projector.run_once(block_ms=0):
            pass

    def client(self) -> DirectClient:
        return DirectClient(self.backend, pump=self.pump)
