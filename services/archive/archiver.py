"""``airship archiver``: every ``archive_every_s`` seconds, each partition's finished matches that finished more than
``archive_grace_s`` ago are written to the archive directory and then removed from Redis (and open matches
nobody filled within ``open_ttl_s`` are removed: :mod:`services.archive.expiry`; running matches nobody moved in
for ``idle_match_s`` are ended by a system command, then archived as finished: :mod:`services.archive.idle`).

Per match, in this order, so that a crash at any point loses nothing and a new pass finishes the job:

1. read meta, seed (the secret key), the seats' links to registered players (the partition's ``seat-players``
   hash, for the ladder: :mod:`services.ratings`) and the whole log from Redis;
2. unless the archive file already holds exactly that (a pass that died before step 4), write it atomically
   (temporary file, fsync, rename, fsync of the directory): ``<dir>/<partition>/<match_id>.jsonl.gz``;
3. read the file back and compare it, header and every event, with what Redis holds;
4. publish the system command ``match.purge`` with the archived version (:mod:`services.archive.purge`); a worker
   removes every key of the match and then its entries in the ``matches:finished`` set and the archiver's pending
   set, in one script, only if the match is still finished at that version (else nothing). The archiver's own Redis
   user may delete no match key (#35). It counts the match archived once it sees the meta gone (it waits up to
   ``archive_purge_wait_s``, for the matches of a page together); a match not removed by then stays in Redis and in
   the finished set, and the next pass finds the file, checks it and publishes the purge again.

An archive file that differs from Redis (and is not a prefix of it) or cannot be read is never replaced:
the match stays in Redis and ``airship_archive_errors_total`` counts it.

When did a match finish? Neither the meta hash nor the status set records it (the set's score is the
creation time). The archiver keeps its own sorted set ``<prefix>:{p}:archive:pending`` (match id -> ms),
filled the first time it sees a finished match: with the id (a timestamp) of the match's last command
result when its results stream still exists (it is written as the match ends), else the time it was seen.
A match is due once that time is ``archive_grace_s`` old.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import redis

from schemas.envelopes import EventEnvelope
from schemas.logentry import Cause, load_slice
from services import metrics
from services.archive.expiry import OpenExpiry
from services.archive.files import archive_path, read_archive, write_archive
from services.archive.idle import IdleExpiry
from services.archive.purge import publish_purge, wait_purged
from services.faults import fault_point
from services.keys import Keys
from services.logs import get_logger
from services.pipeline.redis_backend import _meta_from
from services.pipeline.redis_streams import entries_of, text
from services.readmodels.sources import link_fields, links_from
from services.replay.files import LogFileError, MatchLog, jsonl_lines, public_meta
from services.settings import Settings

log = get_logger("archiver")
PAGE = 500
LOG_PAGE = 1000

def _same_header(have: list[str], wanted: list[str]) -> bool:
    """Whether an existing file's first line is the wanted header, or the wanted header without the player
    links (written by an archiver from before they were archived)."""
    if have == wanted:
        return True
    if not have or not wanted:
        return False
    try:
        old, new = json.loads(have[0]), json.loads(wanted[0])
    except ValueError:
        return False
    return "players" not in old and {k: v for k, v in new.items() if k not in ("players", "created_ms")} == old


class ArchiveError(RuntimeError):
    """A match that cannot be archived now (it stays in Redis; the next pass tries again)."""


def pending_key(keys: Keys, partition: int) -> str:
    """The archiver's sorted set of finished match ids -> when they finished (ms, estimated)."""
    return keys.archive_pending(partition)


@dataclass
class PassReport:
    archived: list[str] = field(default_factory=list)
    expired: list[str] = field(default_factory=list)  # open matches nobody filled (services.archive.expiry)
    ended_idle: list[str] = field(default_factory=list)  # running matches idle too long, ended (services.archive.idle)
    waiting: int = 0
    errors: dict[str, str] = field(default_factory=dict)


class Archiver:
    def __init__(self, r: redis.Redis, settings: Settings, root: Path | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        root = root if root is not None else (Path(settings.archive_dir) if settings.archive_dir else None)
        if root is None:
            raise ValueError("no archive directory: set AIRSHIP_ARCHIVE_DIR (or --dir)")
        self.r = r
        self.settings = settings
        self.keys = settings.keys
        self.root = root
        self.clock = clock
        self.wait_s = settings.archive_purge_wait_s
        self.open_expiry = OpenExpiry(r, self.keys, settings.open_ttl_s, self.wait_s)
        self.idle_expiry = IdleExpiry(r, self.keys, settings.idle_match_s)
        self._stop = threading.Event()
        self.heartbeat: Callable[[], None] = lambda: None

    # -- the process -----------------------------------------------------------------------------
    def run(self) -> None:
        while not self._stop.is_set():
            try:
                report = self.run_once()
                if report.archived or report.errors or report.expired or report.ended_idle:
                    log.info("archive pass", archived=len(report.archived), errors=len(report.errors),
                             waiting=report.waiting, expired=len(report.expired), ended_idle=len(report.ended_idle))
            except redis.RedisError as e:
                metrics.ARCHIVE_ERRORS.inc()
                log.warning("archive pass failed", error=repr(e))
            self.heartbeat()
            self._stop.wait(self.settings.archive_every_s)

    def stop(self) -> None:
        self._stop.set()

    def run_once(self) -> PassReport:
        """One pass over every partition: archive each finished match that is due, remove each open match nobody
        filled in time."""
        report = PassReport()
        for partition in range(self.keys.partitions):
            self._partition(partition, report)
            report.expired += self.open_expiry.run(partition, self.clock() * 1000)
            report.ended_idle += self.idle_expiry.run(partition, self.clock() * 1000)
            if self._stop.is_set():
                break
        return report

    def _partition(self, partition: int, report: PassReport) -> None:
        finished = self.keys.matches(partition, "finished")
        offset = 0
        while True:
            ids = [text(m) for m in cast(list[bytes], self.r.zrange(finished, offset, offset + PAGE - 1))]
            if not ids:
                return
            published: dict[str, int] = {}  # match id -> events archived
            for match_id in self.due(partition, ids, report):
                try:
                    match = self.prepare(match_id)
                    if match is not None:
                        published[match_id] = len(match.events)
                except (ArchiveError, LogFileError, ValueError) as e:
                    metrics.ARCHIVE_ERRORS.inc()
                    report.errors[match_id] = str(e)
                    log.warning("cannot archive match", match_id=match_id, error=str(e))
            gone = self._purged(published) if published else set()
            for match_id in published:
                if match_id in gone:
                    report.archived.append(match_id)
                else:
                    metrics.ARCHIVE_ERRORS.inc()
                    report.errors[match_id] = self._not_purged(match_id)
            offset += len(ids) - len(gone)
            if len(ids) < PAGE:
                return

    def due(self, partition: int, ids: list[str], report: PassReport | None = None) -> list[str]:
        """The ids (of one partition) that finished at least ``archive_grace_s`` ago; records when newly
        seen ones finished."""
        pending = pending_key(self.keys, partition)
        pipe = self.r.pipeline(transaction=False)
        for match_id in ids:
            pipe.zscore(pending, match_id)
        scores = cast(list[float | None], pipe.execute())
        now_ms = self.clock() * 1000
        new = [m for m, s in zip(ids, scores, strict=True) if s is None]
        if new:
            for match_id in new:
                pipe.xrevrange(self.keys.results(match_id), count=1)
            lasts = pipe.execute()
            for match_id, last in zip(new, lasts, strict=True):
                at = int(text(last[0][0]).split("-")[0]) if last else int(now_ms)
                pipe.zadd(pending, {match_id: at}, nx=True)
            pipe.execute()
            pipe.reset()
            for match_id in new:
                pipe.zscore(pending, match_id)
            found = dict(zip(new, cast(list[float | None], pipe.execute()), strict=True))
            scores = [found.get(m, s) for m, s in zip(ids, scores, strict=True)]
        grace_ms = self.settings.archive_grace_s * 1000
        due = [m for m, s in zip(ids, scores, strict=True) if s is not None and s + grace_ms <= now_ms]
        if report is not None:
            report.waiting += len(ids) - len(due)
        return due

    # -- one match -------------------------------------------------------------------------------
    def archive(self, match_id: str) -> bool:
        """Archive one finished match and have it removed from Redis; True when its keys were removed."""
        match = self.prepare(match_id)
        if match is None:
            return False
        if not self._purged({match_id: len(match.events)}):
            raise ArchiveError(self._not_purged(match_id))
        return True

    def prepare(self, match_id: str) -> MatchLog | None:
        """Write and verify the match's archive, then publish its purge; None when the match's meta was gone
        (its set entries are purged too)."""
        match = self.load(match_id)
        if match is None:
            self.remove(match_id, None)
            return None
        self.write(match)
        fault_point("archive_written")
        self.remove(match_id, match)
        return match

    def _purged(self, published: dict[str, int]) -> set[str]:
        """Wait for the workers' purges of ``published`` (match id -> events); the ids whose keys are gone."""
        gone = wait_purged(self.r, self.keys, list(published), "finished", self.wait_s)
        for match_id in gone:
            metrics.ARCHIVED_MATCHES.inc()
            log.info("match archived", match_id=match_id, events=published[match_id])
        return gone

    def _not_purged(self, match_id: str) -> str:
        return (f"match {match_id} archived but not removed from Redis within {self.wait_s:g} s (no worker running, "
                "or the worker refused the purge: see its log); the next pass publishes it again")

    def load(self, match_id: str) -> MatchLog | None:
        """The match as it goes into the archive (header with the seed, every event); None without meta."""
        k = self.keys
        h = self.r.hgetall(k.meta(match_id))
        if not h:
            return None
        meta = _meta_from(h)
        if meta.status != "finished":
            raise ArchiveError(f"match {match_id} is {meta.status}, not finished")
        raw_seed = self.r.get(k.secret(match_id))
        seed = int(cast(bytes, raw_seed)) if raw_seed else None
        # the seats' links to registered players travel with the match (the ladder is rebuilt from the archive)
        links, created_ms = links_from(cast(list[Any], self.r.hmget(
            k.seat_players(k.partition(match_id)), link_fields(match_id, meta.seats))))
        if links:
            meta = meta.model_copy(update={"players": links, "created_ms": created_ms})
        events: list[EventEnvelope] = []
        cause: Cause | None = None  # what a page starting inside a command inherits from the page before
        while True:
            entries = entries_of(self.r.xrange(k.log(match_id), min=f"{len(events) + 1}-0", count=LOG_PAGE))
            page, cause = load_slice(match_id, entries, meta.game, cause)
            events.extend(page)
            if len(entries) < LOG_PAGE:
                break
        return MatchLog(public_meta(meta.model_copy(update={"seed": seed})), events)

    def path(self, match_id: str) -> Path:
        return archive_path(self.root, match_id, self.keys.partitions)

    def write(self, match: MatchLog) -> Path:
        """Make the archive file hold ``match`` (unless it already does) and verify it by reading it back."""
        assert match.meta is not None
        path = self.path(match.meta.match_id)
        wanted = list(jsonl_lines(match))
        try:
            existing = read_archive(path)
        except LogFileError as e:
            raise ArchiveError(f"{path} exists but cannot be read ({e}); not replacing it") from e
        if existing is not None:
            have = list(jsonl_lines(existing))
            if have == wanted:
                return path
            if not _same_header(have[:1], wanted[:1]) or wanted[1:len(have)] != have[1:]:
                raise ArchiveError(f"{path} holds a different match log; not replacing it")
            # an earlier, shorter archive of the same match (or one written before headers carried the player
            # links): the new one holds all of it and more
        write_archive(path, match)
        written = read_archive(path)
        if written is None or list(jsonl_lines(written)) != wanted:
            raise ArchiveError(f"{path} does not read back as written")
        return path

    def remove(self, match_id: str, match: MatchLog | None) -> None:
        """Publish the match's purge at the archived version (a worker removes its keys, then its set entries,
        only if it is finished at that version). ``match`` None: only the set entries of a match whose keys are
        gone (nothing is waited for)."""
        version = match.events[-1].version if match is not None and match.events else 0
        publish_purge(self.r, self.keys, match_id, "finished", version)
