"""Fixtures of the pipeline tests; the test games are registered here."""

import services.pipeline.bench_game  # noqa: F401  (registers tally)
import tests.pipeline.poison  # noqa: F401  (registers poison)
from tests.pipeline.redis_fixtures import procs, redis_backend, redis_settings, redis_url

__all__ = ["procs", "redis_backend", "redis_settings", "redis_url"]
