"""Where a read model finds finished matches: Redis and the archive, as one :class:`FinishedMatch`.

A match lives in Redis while it is played and for the archive's grace after; then its file in the archive
directory is all there is (the archiver copies the seat links and the creation time into the file's header).
:func:`from_redis` and :func:`from_archive` give the same :class:`FinishedMatch` for the same match, so a model's
live projector and its rebuild read one shape; :func:`every_finished` walks both for a rebuild.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

import redis

from schemas.codec import unpack_obj
from schemas.envelopes import EventEnvelope, MatchMeta
from schemas.logentry import Cause, load_slice
from services.archive.files import SUFFIX, read_archive
from services.keys import Keys
from services.logs import get_logger
from services.pipeline.ports import Delivery
from services.pipeline.redis_backend import _meta_from
from services.pipeline.redis_streams import entries_of, text
from services.replay.files import LogFileError, MatchLog

log = get_logger("readmodels")
LOG_PAGE = 1000


@dataclass(frozen=True, slots=True)
class FinishedMatch:
    """A finished match as a read model sees it: its meta, its whole log, who played which seat (registered
    players' names; anonymous seats absent) and when it was created (ms; 0 where nothing recorded it)."""

    meta: MatchMeta
    events: list[EventEnvelope]
    links: dict[int, str]
    created_ms: int
    source: Literal["redis", "archive"] = "redis"


# -- the seat links (the partition's ``seat-players`` hash, written by the join script) ------------------------
def link_fields(match_id: str, seats: int) -> list[str]:
    """The ``seat-players`` fields to HMGET for a match's links: one per seat, then its creation time."""
    return [f"{match_id}.{seat}" for seat in range(seats)] + [f"{match_id}.created"]


def links_from(values: list[Any]) -> tuple[dict[int, str], int]:
    """The HMGET reply of :func:`link_fields` as (seat -> player, created ms)."""
    *seats, created = values
    links = {seat: text(v) if isinstance(v, bytes) else str(v) for seat, v in enumerate(seats) if v is not None}
    return links, int(created) if created is not None else 0


def match_links(r: redis.Redis, keys: Keys, match_id: str, seats: int) -> tuple[dict[int, str], int]:
    """The match's seat -> player links and its creation time (ms), from the partition's seat-players hash."""
    values = cast(list[Any], r.hmget(keys.seat_players(keys.partition(match_id)), link_fields(match_id, seats)))
    return links_from(values)


def linked_any(r: redis.Redis, keys: Keys, partition: int, ids: Sequence[str]) -> list[str]:
    """Those of ``ids`` (one partition) with at least one seat linked to a player (one round trip)."""
    pipe = r.pipeline(transaction=False)
    for match_id in ids:
        pipe.hexists(keys.seat_players(partition), f"{match_id}.created")
    return [m for m, linked in zip(ids, pipe.execute(), strict=True) if linked]


# -- Redis ----------------------------------------------------------------------------------------------------
def read_meta(r: redis.Redis, keys: Keys, match_id: str) -> MatchMeta | None:
    h = r.hgetall(keys.meta(match_id))
    return _meta_from(h) if h else None


def read_log(r: redis.Redis, keys: Keys, match_id: str, game: str) -> list[EventEnvelope]:
    """The match's whole log, page by page (as the archiver reads it)."""
    events: list[EventEnvelope] = []
    cause: Cause | None = None
    while True:
        entries = entries_of(r.xrange(keys.log(match_id), min=f"{len(events) + 1}-0", count=LOG_PAGE))
        page, cause = load_slice(match_id, entries, game, cause)
        events.extend(page)
        if len(entries) < LOG_PAGE:
            return events


def finished_among(r: redis.Redis, keys: Keys, match_ids: Sequence[str]) -> list[str]:
    """Those of ``match_ids`` whose status is ``finished`` (one round trip)."""
    pipe = r.pipeline(transaction=False)
    for match_id in match_ids:
        pipe.hget(keys.meta(match_id), "status")
    return [m for m, s in zip(match_ids, pipe.execute(), strict=True) if s == b"finished"]


def finished_ids(r: redis.Redis, keys: Keys, page: int = 1000) -> Iterator[tuple[int, list[str]]]:
    """Each partition's finished match ids, a page at a time: (partition, ids)."""
    for partition in range(keys.partitions):
        offset = 0
        while True:
            ids = [text(m) for m in cast(list[bytes], r.zrange(keys.matches(partition, "finished"),
                                                               offset, offset + page - 1))]
            if ids:
                yield partition, ids
            if len(ids) < page:
                break
            offset += page


def from_redis(r: redis.Redis, keys: Keys, match_id: str) -> FinishedMatch | None:
    """The finished match ``match_id`` in Redis; None when it is not there or not finished."""
    meta = read_meta(r, keys, match_id)
    if meta is None or meta.status != "finished":
        return None
    links, created = match_links(r, keys, match_id, meta.seats)
    return FinishedMatch(meta, read_log(r, keys, match_id, meta.game), links, created)


# -- the archive ----------------------------------------------------------------------------------------------
def archive_files(root: Path) -> Iterator[Path]:
    """The archive's match files, in a stable order."""
    for partition_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        yield from sorted(f for f in partition_dir.iterdir() if f.name.endswith(SUFFIX) and not f.name.startswith("."))


def from_archive(r: redis.Redis | None, keys: Keys, archived: MatchLog) -> FinishedMatch | None:
    """An archived match (header and log from its file). The links and the creation time come from the file's
    header (``players``, ``created_ms``: the archiver writes them for a match with links); a file from before
    headers carried them falls back to the partition's seat-players hash in Redis (where ``r`` is given)."""
    meta = archived.meta
    if meta is None:
        return None
    if meta.players or r is None:
        links, created = dict(meta.players or {}), meta.created_ms or 0
    else:
        links, created = match_links(r, keys, meta.match_id, meta.seats)
    return FinishedMatch(meta, list(archived.events), links, created, "archive")


# -- both, for a rebuild --------------------------------------------------------------------------------------
@dataclass
class Walk:
    """What :func:`every_finished` found: counts per source, and the archive files it could not read."""

    from_redis: int = 0
    from_archive: int = 0
    unreadable: dict[str, str] | None = None


def every_finished(r: redis.Redis, keys: Keys, archive_dir: Path | None = None,
                   wanted: Callable[[int, list[str]], Iterable[str]] | None = None,
                   walk: Walk | None = None) -> Iterator[FinishedMatch]:
    """Every finished match in Redis, then every file of ``archive_dir`` (a match being archived may come twice:
    key the model's input by match id). ``wanted(partition, ids)`` narrows the Redis ids before their logs are
    read (e.g. :func:`linked_any` bound to Redis); an unreadable archive file is logged, counted in ``walk``
    and skipped."""
    walk = walk if walk is not None else Walk()
    walk.unreadable = walk.unreadable if walk.unreadable is not None else {}
    for partition, ids in finished_ids(r, keys):
        for match_id in (wanted(partition, ids) if wanted is not None else ids):
            found = from_redis(r, keys, match_id)
            if found is not None:
                walk.from_redis += 1
                yield found
    if archive_dir is None or not archive_dir.is_dir():
        return
    for path in archive_files(archive_dir):
        try:
            archived = read_archive(path)
        except LogFileError as e:
            walk.unreadable[str(path)] = str(e)
            log.warning("unreadable archive file skipped", path=str(path), error=str(e))
            continue
        found = from_archive(r, keys, archived) if archived is not None else None
        if found is not None:
            walk.from_archive += 1
            yield found


def match_id_of(delivery: Delivery) -> str | None:
    """The match a feed entry belongs to (a packed EventEnvelope); None for an entry that is not one (the view
    projector dead-letters it; a model's sweep finds its match anyway)."""
    try:
        obj = unpack_obj(delivery.data)
    except ValueError:
        return None
    match_id = obj.get("match_id") if isinstance(obj, dict) else None
    return text(match_id) if isinstance(match_id, (str, bytes)) else None


def moved(deliveries: Sequence[Delivery]) -> list[str]:
    """The matches a batch of feed entries moved, sorted, each once."""
    return sorted({m for m in map(match_id_of, deliveries) if m})
