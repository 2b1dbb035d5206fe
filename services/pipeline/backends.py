"""Opening a backend: the in-process one by default, Redis when a URL is given."""

from __future__ import annotations

from services.pipeline.memory import MemoryBackend
from services.pipeline.ports import Backend


def open_backend(redis_url: str | None, key_prefix: str | None = None) -> Backend:
    """The in-process backend when ``redis_url`` is empty; else Redis, with settings from the environment
    (``AIRSHIP_*``) and the URL and prefix given here."""
    if not redis_url:
        return MemoryBackend()
    from services.pipeline.redis_backend import RedisBackend
    from services.settings import Settings

    return RedisBackend(Settings.from_env(redis_url=redis_url, key_prefix=key_prefix))
