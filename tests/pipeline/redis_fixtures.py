"""Redis fixtures: each test gets its own key prefix on the server named by ``AIRSHIP_TEST_REDIS_URL``
(default redis://127.0.0.1:6379/0) and every key under it is deleted afterwards. The tests never depend
on what else the server holds. An unreachable server fails the tests (with a clear message): CI starts
one, and a silent skip would hide that nothing was tested."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
import redis

from services.pipeline.redis_backend import RedisBackend, connect, delete_prefix
from services.settings import Settings

REDIS_URL = os.environ.get("AIRSHIP_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


@pytest.fixture(scope="session")
def redis_url() -> str:
    try:
        connect(REDIS_URL).ping()
    except redis.ConnectionError as e:
        pytest.fail(f"Redis is not reachable at {REDIS_URL} ({e}); start one with "
                    "`redis-server --daemonize yes --port 6379 --save '' --appendonly no` "
                    "or point AIRSHIP_TEST_REDIS_URL at one", pytrace=False)
    return REDIS_URL


@pytest.fixture
def redis_settings(redis_url: str) -> Iterator[Settings]:
    """Settings with a fresh key prefix (4 partitions, short blocks); the prefix is wiped afterwards."""
    settings = Settings(redis_url=redis_url, key_prefix=f"airship-test-{uuid.uuid4().hex[:8]}", partitions=4,
                        block_ms=50, claim_every_s=0.2)
    yield settings
    delete_prefix(connect(redis_url), settings.key_prefix)


@pytest.fixture
def redis_backend(redis_settings: Settings) -> Iterator[RedisBackend]:
    backend = RedisBackend(redis_settings)
    yield backend
    backend.close()
