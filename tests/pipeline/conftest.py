"""Fixtures of the pipeline tests."""

from tests.pipeline.redis_fixtures import redis_backend, redis_settings, redis_url

__all__ = ["redis_backend", "redis_settings", "redis_url"]
