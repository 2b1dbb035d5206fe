"""The backend contract against real Redis, and the atomic append under concurrency."""

from __future__ import annotations

import pytest

from services.pipeline.redis_backend import RedisBackend
from tests.pipeline.contract import BackendContract

pytestmark = pytest.mark.redis


class TestRedisBackend(BackendContract):
    @pytest.fixture
    def backend(self, redis_backend: RedisBackend) -> RedisBackend:
        return redis_backend
