"""The ratings read model in Redis, every key in one hash slot (``<prefix>:{ratings}:...``):

- ``games``: set of the games with rated matches;
- ``<game>:matches``: hash match id -> :class:`~services.ratings.ladder.RatedMatch` (packed): the input, written
  once per match (HSETNX: a match is rated exactly once however often it is seen);
- ``<game>:standings``: the ladder, packed (best first); ``<game>:history``: hash player -> packed history;
- ``epoch``: raised by every rebuild; ``rebuild``: hash of the last rebuild's ``seconds``, ``at_ms`` and ``matches``.

The standings and histories are a pure function of the game's ``matches`` hash (:func:`services.ratings.ladder.fold`).
Whoever adds a match publishes the game again: it reads the epoch and the matches, folds them, and writes the
result with a compare-and-set script that refuses it unless the epoch and the number of matches are unchanged
(within an epoch matches are only added, so the same count is the same set). Two projectors publishing at
once therefore both write the same thing, and one that read an older set loses and folds again.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

import redis

from schemas.codec import pack_obj, unpack_obj
from services import metrics
from services.keys import Keys
from services.pipeline.redis_streams import text
from services.ratings.ladder import Ladder, RatedMatch, fold

PUBLISH_TRIES = 20

PUBLISH = """#!lua
-- Write a game's ladder if it was folded from the current set of rated matches.
-- KEYS: epoch, matches, standings, history
-- ARGV: epoch, number of matches, standings (packed), n, n player/history pairs, then players to forget
if (redis.call('GET', KEYS[1]) or '0') ~= ARGV[1] or redis.call('HLEN', KEYS[2]) ~= tonumber(ARGV[2]) then
  return 0
end
redis.call('SET', KEYS[3], ARGV[3])
local n = tonumber(ARGV[4])
if n > 0 then
  redis.call('HSET', KEYS[4], unpack(ARGV, 5, 4 + 2 * n))
end
if #ARGV > 4 + 2 * n then
  redis.call('HDEL', KEYS[4], unpack(ARGV, 5 + 2 * n, #ARGV))
end
return 1
"""


class Conflict(RuntimeError):
    """The ladder kept changing while it was being published (retried by the caller's next pass)."""


class RatingsStore:
    def __init__(self, r: redis.Redis, keys: Keys) -> None:
        self.r = r
        self.keys = keys
        self._publish = r.register_script(PUBLISH)

    def _k(self, game: str, part: str) -> str:
        return self.keys.ratings(f"{game}:{part}")

    # -- the input: rated matches ----------------------------------------------------------------
    def record(self, match: RatedMatch) -> bool:
        """Add a rated match; False when it was recorded before (nothing changes)."""
        pipe = self.r.pipeline(transaction=False)
        pipe.hsetnx(self._k(match.game, "matches"), match.match_id, pack_obj(match.to_obj()))
        pipe.sadd(self.keys.ratings("games"), match.game)
        added, _ = pipe.execute()
        return bool(added)

    def recorded(self, game: str, match_ids: Iterable[str]) -> list[bool]:
        pipe = self.r.pipeline(transaction=False)
        for match_id in match_ids:
            pipe.hexists(self._k(game, "matches"), match_id)
        return [bool(x) for x in pipe.execute()]

    def matches(self, game: str) -> list[RatedMatch]:
        raw = cast(dict[bytes, bytes], self.r.hgetall(self._k(game, "matches")))
        return [RatedMatch.from_obj(unpack_obj(v)) for v in raw.values()]

    def games(self) -> list[str]:
        return sorted(text(g) for g in cast(set[bytes], self.r.smembers(self.keys.ratings("games"))))

    # -- the output: the ladder ------------------------------------------------------------------
    def publish(self, game: str) -> Ladder:
        """Fold the game's rated matches and write its ladder (only what changed of the histories)."""
        with metrics.RATINGS_PUBLISH_SECONDS.time():
            return self._publish_once(game)

    def _publish_once(self, game: str) -> Ladder:
        for _ in range(PUBLISH_TRIES):
            epoch = text(self.r.get(self.keys.ratings("epoch")) or b"0")
            raw = cast(dict[bytes, bytes], self.r.hgetall(self._k(game, "matches")))
            ladder = fold(RatedMatch.from_obj(unpack_obj(v)) for v in raw.values())
            stored = cast(dict[bytes, bytes], self.r.hgetall(self._k(game, "history")))
            changed = []
            for player, rows in ladder.history.items():
                packed = pack_obj(rows)
                if stored.get(player.encode()) != packed:
                    changed += [player, packed]
            gone = [k for k in stored if text(k) not in ladder.history]
            keys = [self.keys.ratings("epoch"), self._k(game, "matches"), self._k(game, "standings"),
                    self._k(game, "history")]
            args: list[Any] = [epoch, len(raw), pack_obj(ladder.standings), len(changed) // 2, *changed, *gone]
            if self._publish(keys=keys, args=args):
                return ladder
        raise Conflict(f"the ladder of {game} kept changing while it was published")

    def standings(self, game: str) -> list[dict[str, Any]]:
        data = self.r.get(self._k(game, "standings"))
        return cast(list[dict[str, Any]], unpack_obj(cast(bytes, data))) if data else []

    def history(self, game: str, player: str) -> list[dict[str, Any]]:
        data = self.r.hget(self._k(game, "history"), player)
        return cast(list[dict[str, Any]], unpack_obj(cast(bytes, data))) if data else []

    def drop(self) -> None:
        """Forget the whole read model (rebuild): raise the epoch first, so a publish in flight is refused."""
        self.r.incr(self.keys.ratings("epoch"))
        names = [self.keys.ratings("games")]
        for game in self.games():
            names += [self._k(game, part) for part in ("matches", "standings", "history")]
        self.r.delete(*names)

    def record_rebuild(self, seconds: float, at_ms: int, matches: int) -> None:
        """Note the last rebuild (``rebuild`` hash: seconds, at_ms, matches), for the projector's gauges."""
        self.r.hset(self.keys.ratings("rebuild"), mapping={"seconds": f"{seconds:.6f}", "at_ms": at_ms,
                                                           "matches": matches})

    def last_rebuild(self) -> dict[str, float]:
        raw = cast(dict[bytes, bytes], self.r.hgetall(self.keys.ratings("rebuild")))
        return {text(k): float(v) for k, v in raw.items()}

    def snapshot(self) -> dict[str, Any]:
        """Everything the read model holds but the epoch, decoded (for comparing a rebuild with the live model)."""
        out: dict[str, Any] = {}
        for game in self.games():
            history = cast(dict[bytes, bytes], self.r.hgetall(self._k(game, "history")))
            out[game] = {"matches": sorted((m.to_obj() for m in self.matches(game)), key=lambda o: o["m"]),
                         "standings": self.standings(game),
                         "history": {text(k): unpack_obj(v) for k, v in sorted(history.items())}}
        return out


__all__ = ["Conflict", "RatingsStore"]
