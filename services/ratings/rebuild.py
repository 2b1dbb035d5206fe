"""``airship ratings rebuild``: drop the ratings read model and compute it again from every finished match,
in Redis and in the archive directory.

Every finished match found (the read-model kit's :func:`~services.readmodels.sources.every_finished`) is turned
into its :class:`~services.ratings.ladder.RatedMatch` by the same code the live projector runs
(:mod:`services.ratings.matches`) and recorded once by match id (a match being archived may be found in both
places; both give the same record); then each game's ladder is folded in the canonical order and published. The
result equals what the live projector holds for the same matches, exactly: the projector folds the same set in
the same order. A live projector may run meanwhile: the epoch the drop raises makes any ladder it folded before
the drop lose its compare-and-set, and every match it rates afterwards is a match the rebuild records too.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import redis

from services import metrics
from services.keys import Keys
from services.ratings.matches import to_rated
from services.ratings.store import RatingsStore
from services.readmodels.sources import Walk, every_finished, linked_any


@dataclass
class RebuildReport:
    from_redis: int = 0
    from_archive: int = 0
    games: dict[str, int] = field(default_factory=dict)  # game -> rated matches
    unreadable: dict[str, str] = field(default_factory=dict)  # archive file -> error
    seconds: float = 0.0  # how long the rebuild took


def rebuild(r: redis.Redis, keys: Keys, archive_dir: Path | None = None) -> RebuildReport:
    started = time.monotonic()
    store = RatingsStore(r, keys)
    store.drop()
    report = RebuildReport()
    walk = Walk(unreadable=report.unreadable)
    for match in every_finished(r, keys, archive_dir, wanted=partial(linked_any, r, keys), walk=walk):
        found = to_rated(match)
        if found is not None and store.record(found):
            if match.source == "archive":
                report.from_archive += 1
            else:
                report.from_redis += 1
    for game in store.games():
        store.publish(game)
        report.games[game] = len(store.matches(game))
    report.seconds = time.monotonic() - started
    store.record_rebuild(report.seconds, int(time.time() * 1000), sum(report.games.values()))
    metrics.RATINGS_REBUILD_SECONDS.set(report.seconds)
    return report
