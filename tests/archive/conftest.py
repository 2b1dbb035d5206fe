"""Fixtures of the archive tests: a real Redis with a fresh key prefix per test (tests/pipeline)."""

import tests.pipeline.nim  # noqa: F401  (registers nim)
from tests.pipeline.redis_fixtures import redis_backend, redis_settings, redis_url

__all__ = ["redis_backend", "redis_settings", "redis_url"]
