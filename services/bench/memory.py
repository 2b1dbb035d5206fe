"""``airship bench memory``: Redis bytes per event and per finished match.

Plays ``matches`` bot matches of each built-in game through the real pipeline (a worker and a projector
as threads of this process, on a fresh key prefix), then sums ``MEMORY USAGE`` of every key under the
prefix, by kind: match logs, per-match records (meta, at-most-once ``seen`` hash, results stream, views,
view announcements), and the shared partition streams (feeds, commands), which are trimmed by length and
so do not grow with the number of matches.
"""

from __future__ import annotations

import json
import sys
import uuid
from collections import Counter
from dataclasses import asdict, dataclass, field

from services.bots.base import RandomBot
from services.bots.runner import play_match
from services.games import builtin_games, default_seats, get_game
from services.pipeline.direct import DirectClient
from services.pipeline.redis_backend import RedisBackend, delete_prefix
from services.pipeline.redis_local import LocalServices
from services.settings import Settings

SHARED = ("feed", "commands", "workers")
"""Keys not per match: partition streams trimmed by length, the workers' heartbeats."""


@dataclass
class MemoryBench:
    matches: int
    events: int
    bytes_by_kind: dict[str, int] = field(default_factory=dict)

    @property
    def per_match_bytes(self) -> int:
        """Everything a finished match keeps (log, meta, seen, results, views, announcements)."""
        return sum(v for k, v in self.bytes_by_kind.items() if k not in SHARED)

    def as_dict(self) -> dict[str, object]:
        n = max(self.matches, 1)
        return {**asdict(self), "log_bytes_per_event": round(self.bytes_by_kind.get("log", 0) / max(self.events, 1), 1),
                "bytes_per_event": round(self.per_match_bytes / max(self.events, 1), 1),
                "bytes_per_finished_match": round(self.per_match_bytes / n),
                "log_bytes_per_finished_match": round(self.bytes_by_kind.get("log", 0) / n),
                "events_per_match": round(self.events / n, 1)}


def kind_of(key: str) -> str:
    if ":match:" in key:
        return "views" if key.rsplit(":", 2)[1] == "view" else key.rsplit(":", 1)[1]
    return key.rsplit(":", 1)[1]


def measure(settings: Settings, games: list[str], matches: int) -> MemoryBench:
    services = LocalServices(settings).start()
    backend = RedisBackend(settings)
    client = DirectClient(backend, poll_ms=50)
    played = events = 0
    try:
        for name in games:
            seats = default_seats(get_game(name))
            for i in range(matches):
                report = play_match(client, name, seats, [RandomBot(i * 16 + s) for s in range(seats)], seed=i + 1)
                played, events = played + 1, events + report.version
        sizes: Counter[str] = Counter()
        r = backend.redis
        for key in r.scan_iter(match=f"{settings.key_prefix}:*", count=1000):
            sizes[kind_of(key.decode())] += int(r.memory_usage(key, samples=0) or 0)
        return MemoryBench(played, events, dict(sizes))
    finally:
        services.stop(keep_s=None)
        delete_prefix(backend.redis, settings.key_prefix)
        backend.close()


def run(settings: Settings, games: list[str] | None, matches: int, as_json: bool) -> int:
    settings = settings.with_(key_prefix=f"{settings.key_prefix}-bench-mem-{uuid.uuid4().hex[:6]}", block_ms=50)
    result = measure(settings, games or builtin_games(), matches)
    out = result.as_dict()
    if as_json:
        print(json.dumps({"bench": "memory", **out}))
        return 0
    print(f"{result.matches} finished matches, {result.events} events ({out['events_per_match']} per match)")
    for kind, size in sorted(result.bytes_by_kind.items(), key=lambda kv: -kv[1]):
        print(f"  {kind:10} {size:>12,} bytes")
    print(f"bytes per event (everything a match keeps): {out['bytes_per_event']}; log alone: "
          f"{out['log_bytes_per_event']}", file=sys.stdout)
    print(f"bytes per finished match: {out['bytes_per_finished_match']:,}; log alone: "
          f"{out['log_bytes_per_finished_match']:,}")
    return 0
