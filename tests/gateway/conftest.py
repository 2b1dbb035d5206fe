"""Fixtures of the gateway tests: a real stack (worker, projector, gateway processes) on the test Redis."""

from collections.abc import Iterator

import pytest
import redis

import tests.pipeline.nim  # noqa: F401  (registers nim)
from services.bench import register_tally
from services.pipeline.redis_backend import connect
from tests.gateway.stack import GatewayStack, gateway_stack
from tests.pipeline.redis_fixtures import redis_url

register_tally()  # the benchmark game, which the test stacks and lobbies use

__all__ = ["gateway_stack", "r", "redis_url", "stack"]


@pytest.fixture(scope="module")
def stack(gateway_stack: GatewayStack) -> GatewayStack:
    return gateway_stack


@pytest.fixture(scope="module")
def r(stack: GatewayStack) -> Iterator[redis.Redis]:
    """A Redis connection for looking at what the stack stored (as an operator would)."""
    conn = connect(stack.settings.redis_url)
    yield conn
    conn.close()
