"""Fixtures of the operations tests: the repository root, kustomize builds, a Redis when one answers."""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def redis_client() -> Iterator[object]:
    """A client of the test Redis (``AIRSHIP_TEST_REDIS_URL``); skips when none answers."""
    import redis

    url = os.environ.get("AIRSHIP_TEST_REDIS_URL", "redis://127.0.0.1:6379/9")
    client = redis.Redis.from_url(url, socket_connect_timeout=1)
    try:
        client.ping()
    except redis.ConnectionError:
        pytest.skip(f"no Redis answers at {url}")
    yield client
    client.close()


@pytest.fixture
def key_prefix(redis_client: object) -> Iterator[str]:
    prefix = f"test-ops-{uuid.uuid4().hex[:8]}"
    yield prefix
    for key in redis_client.scan_iter(f"{prefix}:*"):  # type: ignore[attr-defined]
        redis_client.delete(key)  # type: ignore[attr-defined]
