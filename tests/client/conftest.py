"""Fixtures of the client tests: the gateway stack (worker, projector, gateway processes on the test Redis)."""

import services.pipeline.bench_game  # noqa: F401  (registers tally)
import tests.pipeline.nim  # noqa: F401  (registers nim)
from tests.gateway.stack import gateway_stack
from tests.pipeline.redis_fixtures import redis_url

__all__ = ["gateway_stack", "redis_url"]
