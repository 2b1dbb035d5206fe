"""Running matches nobody moves in leave Redis too: the archiver ends each running match that has not moved for
``idle_s`` (``AIRSHIP_IDLE_MATCH_S``; 0 keeps them) by publishing the system command that ends a match early,
``match.abandon`` with rule ``expired``, and the next passes archive it like any finished match.

The command goes through the one game contract, as the players' abandon does (``services.games.abandon``): a
worker decides it at the version the archiver saw (``expected_version``), so a move made meanwhile makes it stale
and nothing ends; its ``MatchAbandoned`` event (``{"votes": [], "rule": "expired"}``) is in the log, the views say
the match is finished with ``outcome.detail.rule == "expired"``, and the archive carries it. Its command id is
``expire-v<version>`` (a seat's ids are ``<seat>.<key>``, the players' abandon is ``abandon-v<version>``): however
many passes or archivers publish it, it is applied at most once. It is stamped with seat 0, which every running
match has (the worker checks the seat like any command's); the event says by its rule that the service ended it.

When did a match last move? The append script writes the meta field ``moved`` (Redis's clock, ms) with every
append that adds events, and the claim that starts a match writes it too. A match started before that field
existed falls back on its updates stream's newest entry (a view written), else its creation time.
"""

from __future__ import annotations

from typing import Any, cast

import redis

from schemas.codec import pack
from schemas.envelopes import CommandEnvelope
from schemas.game_schemas import ABANDON_COMMAND
from services import metrics
from services.games.abandon import EXPIRED
from services.keys import Keys
from services.logs import get_logger
from services.pipeline.redis_streams import FIELD, text

log = get_logger("archiver")
PAGE = 500


def expiry_id(version: int) -> str:
    """The command id of the idle expiry of a match at ``version``: one per version, never a seat's."""
    return f"expire-v{version}"


class IdleExpiry:
    """Ends the running matches of a partition that have not moved for ``idle_s`` (a system command each)."""

    def __init__(self, r: redis.Redis, keys: Keys, idle_s: float) -> None:
        self.r = r
        self.keys = keys
        self.idle_s = idle_s

    def run(self, partition: int, now_ms: float) -> list[str]:
        """Publish the expiry of every idle running match of the partition; their ids."""
        if self.idle_s <= 0:
            return []
        running = self.keys.matches(partition, "running")
        cutoff = now_ms - self.idle_s * 1000
        published: list[str] = []
        offset = 0
        while True:
            # the set's score is the creation time: a match created after the cutoff cannot be idle yet
            ids = [text(m) for m in cast(list[bytes], self.r.zrangebyscore(
                running, "-inf", f"({int(cutoff)}", start=offset, num=PAGE))]
            if not ids:
                return published
            published += [m for m, v in self._idle(ids, cutoff) if self._publish(partition, m, v)]
            offset += len(ids)
            if len(ids) < PAGE:
                return published

    def _idle(self, ids: list[str], cutoff: float) -> list[tuple[str, int]]:
        """(match id, version) of those of ``ids`` still running whose last move is before ``cutoff`` and whose
        expiry at that version was not decided yet."""
        k = self.keys
        pipe = self.r.pipeline(transaction=False)
        for match_id in ids:
            pipe.hmget(k.meta(match_id), "status", "version", "moved", "created")
        metas = cast(list[list[bytes | None]], pipe.execute())
        candidates: list[tuple[str, int, bytes | None, bytes | None]] = []
        for match_id, (status, version, moved, created) in zip(ids, metas, strict=True):
            if status == b"running":
                candidates.append((match_id, int(version or 0), moved, created))
        unknown = [c for c in candidates if c[2] is None]  # started before 'moved' was written
        for match_id, *_ in unknown:
            pipe.xrevrange(k.updates(match_id), count=1)
        fallback: dict[str, float] = {}
        for (match_id, _, _, created), newest in zip(unknown, pipe.execute(), strict=True):
            fallback[match_id] = int(text(newest[0][0]).split("-")[0]) if newest else float(created or 0)
        idle = [(m, v) for m, v, moved, _ in candidates
                if (float(moved) if moved is not None else fallback[m]) < cutoff]
        for match_id, at in idle:
            pipe.hget(k.seen(match_id), expiry_id(at))
        decided = pipe.execute() if idle else []
        return [m for m, done in zip(idle, decided, strict=True) if done is None]

    def _publish(self, partition: int, match_id: str, version: int) -> bool:
        envelope = CommandEnvelope(command_id=expiry_id(version), match_id=match_id, seat=0, type=ABANDON_COMMAND,
                                   body={"votes": [], "rule": EXPIRED}, expected_version=version)
        fields: dict[Any, Any] = {FIELD: pack(envelope)}
        self.r.xadd(self.keys.commands(partition), fields)
        metrics.EXPIRED_IDLE_MATCHES.inc()
        log.info("idle match expired", match_id=match_id, version=version, idle_s=self.idle_s)
        return True
