from services.bench import register_tally
from tests.pipeline.redis_fixtures import redis_backend, redis_settings, redis_url

register_tally()

__all__ = ["redis_backend", "redis_settings", "redis_url"]
