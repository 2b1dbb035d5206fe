"""Fixtures of the client tests: the gateway stack (worker, projector, gateway processes on the test Redis)."""

import tests.pipeline.nim  # noqa: F401  (registers nim)
from services.bench import register_tally
from tests.gateway.stack import gateway_stack
from tests.pipeline.redis_fixtures import redis_url

register_tally()  # the benchmark game, which the test stacks and lobbies use

__all__ = ["gateway_stack", "redis_url"]
