"""Open matches nobody filled leave Redis: the archiver removes each match still waiting for players
``open_ttl_s`` after its creation (``AIRSHIP_OPEN_TTL_S``; 0 keeps them).

Anyone may create a match (the gateway bounds how many wait at once: ``AIRSHIP_MAX_OPEN_MATCHES``), so without
this the matches created and never joined would stay forever. Such a match has no player's move to keep: it is
removed, not archived. The partition's ``matches:open`` set's score is the creation time, so the due ones are
one range read. The archiver removes nothing itself (#35): it publishes ``match.purge`` (status ``open``) for each
due match and a worker removes the match's keys and its set entry in one script, only while it is still open and
older than the worker's own ``AIRSHIP_OPEN_TTL_S`` (a seat taken at the last moment makes it running: it stays, and
only its stale open-set entry goes): :mod:`services.archive.purge`.
"""

from __future__ import annotations

from typing import cast

import redis

from services import metrics
from services.archive.purge import publish_purge, removed, wait_purged
from services.keys import Keys
from services.logs import get_logger
from services.pipeline.redis_streams import text

log = get_logger("archiver")
PAGE = 500

class OpenExpiry:
    """Removes the open matches of a partition created more than ``ttl_s`` ago."""

    def __init__(self, r: redis.Redis, keys: Keys, ttl_s: float, wait_s: float = 10.0) -> None:
        self.r = r
        self.keys = keys
        self.ttl_s = ttl_s
        self.wait_s = wait_s

    def due(self, partition: int, now_ms: float) -> list[str]:
        """The ids of the partition's open matches created before ``now_ms - ttl``, oldest first (a page)."""
        cutoff = int(now_ms - self.ttl_s * 1000)
        found = self.r.zrangebyscore(self.keys.matches(partition, "open"), "-inf", f"({cutoff}", start=0, num=PAGE)
        return [text(m) for m in cast(list[bytes], found)]

    def expire(self, match_id: str) -> bool:
        """Remove one open match; True when it was removed (False: it began meanwhile, was gone, or no worker
        removed it within ``wait_s``)."""
        return self.expire_all([match_id]) == [match_id]

    def expire_all(self, match_ids: list[str]) -> list[str]:
        """Publish the purge of each, wait for the workers; the ids removed."""
        for match_id in match_ids:
            publish_purge(self.r, self.keys, match_id, "open")
        decided = wait_purged(self.r, self.keys, match_ids, "open", self.wait_s)
        gone = set(removed(self.r, self.keys, sorted(decided)))
        expired = [m for m in match_ids if m in gone]
        for match_id in expired:
            metrics.EXPIRED_OPEN_MATCHES.inc()
            log.info("open match expired", match_id=match_id)
        if len(decided) < len(match_ids):
            log.warning("open matches not purged yet (no worker, or a worker's AIRSHIP_OPEN_TTL_S is longer)",
                        left=len(match_ids) - len(decided))
        return expired

    def run(self, partition: int, now_ms: float) -> list[str]:
        """Every due open match of the partition removed; their ids."""
        if self.ttl_s <= 0:
            return []
        expired: list[str] = []
        while True:
            due = self.due(partition, now_ms)
            done = self.expire_all(due) if due else []
            expired += done
            if len(due) < PAGE or not done:  # (a full page the workers refused: the next pass tries again)
                return expired
