"""Fixtures of the pipeline tests; the test games are registered here."""

import tests.pipeline.poison  # noqa: F401  (registers poison)
from services.bench import register_tally
from tests.pipeline.redis_fixtures import procs, redis_backend, redis_settings, redis_url

register_tally()  # the benchmark game, which the test stacks and lobbies use

__all__ = ["procs", "redis_backend", "redis_settings", "redis_url"]
