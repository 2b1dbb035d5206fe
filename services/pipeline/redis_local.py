"""Workers and projectors as threads of this process, against Redis: for ``airship play --redis`` and
tests. In production each runs as its own process (``airship worker`` / ``airship projector``); the code
is the same, only the process boundary differs.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable

from services.logs import get_logger
from services.pipeline.projector import Projector
from services.pipeline.redis_backend import RedisBackend, delete_prefix, expire_prefix
from services.pipeline.worker import Worker
from services.settings import Settings

log = get_logger("local")


class LocalServices:
    def __init__(self, settings: Settings, workers: int = 1, projectors: int = 1) -> None:
        self.settings = settings
        self._backends: list[RedisBackend] = []
        self._stops: list[Callable[[], None]] = []
        self._threads: list[threading.Thread] = []
        run = uuid.uuid4().hex[:6]
        for i in range(workers):
            backend = self._backend()
            worker = Worker(backend.bus, backend.store, f"local-{run}-worker-{i}", settings.worker())
            self._add(worker.run, worker.stop, f"worker-{i}")
        for i in range(projectors):
            backend = self._backend()
            projector = Projector(backend.store, backend.views, f"local-{run}-projector-{i}",
                                  **settings.projector_options())
            self._add(projector.run, projector.stop, f"projector-{i}")

    def _backend(self) -> RedisBackend:
        backend = RedisBackend(self.settings)
        self._backends.append(backend)
        return backend

    def _add(self, run: Callable[[], None], stop: Callable[[], None], name: str) -> None:
        def guarded() -> None:
            try:
                run()
            except Exception:
                log.exception("local service died", service=name)

        self._stops.append(stop)
        self._threads.append(threading.Thread(target=guarded, name=name, daemon=True))

    def start(self) -> LocalServices:
        for thread in self._threads:
            thread.start()
        return self

    def stop(self, keep_s: int | None = 3600) -> None:
        """Stop every service (each finishes its batch), then let the keys expire after ``keep_s`` seconds
        (None: delete them now)."""
        for stop in self._stops:
            stop()
        for thread in self._threads:
            thread.join(timeout=self.settings.block_ms / 1000 + 10)
        r = self._backends[0].redis if self._backends else RedisBackend(self.settings).redis
        if keep_s is None:
            delete_prefix(r, self.settings.key_prefix)
        else:
            expire_prefix(r, self.settings.key_prefix, keep_s)
        for backend in self._backends:
            backend.close()
