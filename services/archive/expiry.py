"""Open matches nobody filled leave Redis: the archiver removes each match still waiting for players
``open_ttl_s`` after its creation (``AIRSHIP_OPEN_TTL_S``; 0 keeps them).

Anyone may create a match (the gateway bounds how many wait at once: ``AIRSHIP_MAX_OPEN_MATCHES``), so without
this the matches created and never joined would stay forever. Such a match has no player's move to keep: it is
removed, not archived. The partition's ``matches:open`` set's score is the creation time, so the due ones are
one range read; one script per match removes its keys and its set entry, only while it is still open (a seat
taken at the last moment makes it running: it stays).
"""

from __future__ import annotations

from typing import cast

import redis

from services import metrics
from services.keys import Keys
from services.logs import get_logger
from services.pipeline.redis_streams import text

log = get_logger("archiver")
PAGE = 500

EXPIRE_OPEN = """-- Remove a match still open (waiting for players), atomically; leave it if a seat's join started it.
-- Returns 'expired' | 'started' (no longer open: only its stale open-set entry is removed) | 'gone'.
-- KEYS: meta, open set, then the match's other keys (log, secret, seen, sent, results, updates, views)
-- ARGV: match id
local status = redis.call('HGET', KEYS[1], 'status')
if status and status ~= 'open' then
  redis.call('ZREM', KEYS[2], ARGV[1])
  return 'started'
end
for i = 3, #KEYS do
  redis.call('UNLINK', KEYS[i])
end
redis.call('UNLINK', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if status then
  return 'expired'
end
return 'gone'
"""


class OpenExpiry:
    """Removes the open matches of a partition created more than ``ttl_s`` ago."""

    def __init__(self, r: redis.Redis, keys: Keys, ttl_s: float) -> None:
        self.r = r
        self.keys = keys
        self.ttl_s = ttl_s
        self._expire = r.register_script(EXPIRE_OPEN)

    def due(self, partition: int, now_ms: float) -> list[str]:
        """The ids of the partition's open matches created before ``now_ms - ttl``, oldest first (a page)."""
        cutoff = int(now_ms - self.ttl_s * 1000)
        found = self.r.zrangebyscore(self.keys.matches(partition, "open"), "-inf", f"({cutoff}", start=0, num=PAGE)
        return [text(m) for m in cast(list[bytes], found)]

    def expire(self, match_id: str) -> bool:
        """Remove one open match; True when it was removed (False: it began meanwhile, or was gone)."""
        k = self.keys
        seats = int(cast(bytes | None, self.r.hget(k.meta(match_id), "seats")) or 0)
        keys = [k.meta(match_id), k.match_matches(match_id, "open"), k.log(match_id), k.secret(match_id),
                k.seen(match_id), k.sent(match_id), k.results(match_id), k.updates(match_id),
                k.view(match_id, "public"), *(k.view(match_id, str(s)) for s in range(seats))]
        outcome = text(self._expire(keys=keys, args=[match_id]))
        if outcome == "expired":
            metrics.EXPIRED_OPEN_MATCHES.inc()
            log.info("open match expired", match_id=match_id)
            return True
        return False

    def run(self, partition: int, now_ms: float) -> list[str]:
        """Every due open match of the partition removed; their ids."""
        if self.ttl_s <= 0:
            return []
        expired: list[str] = []
        while True:
            due = self.due(partition, now_ms)
            expired += [m for m in due if self.expire(m)]
            if len(due) < PAGE:
                return expired
