"""``airship ratings rebuild``: drop the ratings read model and compute it again from every finished match,
in Redis and in the archive directory.

Every finished match found is turned into its :class:`~services.ratings.ladder.RatedMatch` by the same code the
live projector runs (:mod:`services.ratings.matches`) and recorded once by match id (a match being archived
may be found in both places; both give the same record); then each game's ladder is folded in the canonical
order and published. The result equals what the live projector holds for the same matches, exactly: the
projector folds the same set in the same order. A live projector may run meanwhile: the epoch the drop raises
makes any ladder it folded before the drop lose its compare-and-set, and every match it rates afterwards is a
match the rebuild records too.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import redis

from services import metrics
from services.archive.files import SUFFIX, read_archive
from services.keys import Keys
from services.logs import get_logger
from services.ratings.matches import from_archive, from_redis
from services.ratings.store import RatingsStore, finished_ids, rated_candidates
from services.replay.files import LogFileError

log = get_logger("ratings")


@dataclass
class RebuildReport:
    from_redis: int = 0
    from_archive: int = 0
    games: dict[str, int] = field(default_factory=dict)  # game -> rated matches
    unreadable: dict[str, str] = field(default_factory=dict)  # archive file -> error
    seconds: float = 0.0  # how long the rebuild took


def archive_files(root: Path) -> Iterator[Path]:
    """The archive's match files, in a stable order."""
    for partition_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        yield from sorted(f for f in partition_dir.iterdir() if f.name.endswith(SUFFIX) and not f.name.startswith("."))


def rebuild(r: redis.Redis, keys: Keys, archive_dir: Path | None = None) -> RebuildReport:
    started = time.monotonic()
    store = RatingsStore(r, keys)
    store.drop()
    report = RebuildReport()
    for partition, ids in finished_ids(r, keys):
        for match_id in rated_candidates(r, keys, partition, ids):
            rated = from_redis(r, keys, match_id)
            if rated is not None and store.record(rated):
                report.from_redis += 1
    if archive_dir is not None and archive_dir.is_dir():
        for path in archive_files(archive_dir):
            try:
                archived = read_archive(path)
            except LogFileError as e:
                report.unreadable[str(path)] = str(e)
                log.warning("unreadable archive file left out of the ratings", path=str(path), error=str(e))
                continue
            rated = from_archive(r, keys, archived) if archived is not None else None
            if rated is not None and store.record(rated):
                report.from_archive += 1
    for game in store.games():
        store.publish(game)
        report.games[game] = len(store.matches(game))
    report.seconds = time.monotonic() - started
    store.record_rebuild(report.seconds, int(time.time() * 1000), sum(report.games.values()))
    metrics.RATINGS_REBUILD_SECONDS.set(report.seconds)
    return report
