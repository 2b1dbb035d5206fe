"""Opening a backend: the in-process one by default, Redis when a URL is given."""

from __future__ import annotations

from services.pipeline.memory import MemoryBackend
from services.pipeline.ports import Backend


def open_backend(redis_url: str | None, **kwargs: object) -> Backend:
    if not redis_url:
        return MemoryBackend()
    from services.pipeline.redis_backend import RedisBackend

    return RedisBackend.from_url(redis_url, **kwargs)  # type: ignore[arg-type]
