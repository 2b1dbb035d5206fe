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
4. one script removes every key of the match (UNLINK) and then its entries in the ``matches:finished`` set
   and the archiver's pending set, only if the match is still finished at the archived version.

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
from services.faults import fault_point
from services.keys import Keys
from services.logs import get_logger
from services.pipeline.redis_backend import _meta_from
from services.pipeline.redis_streams import entries_of, text
from services.ratings.players import link_fields, links_from
from services.replay.files import LogFileError, MatchLog, jsonl_lines, public_meta
from services.settings import Settings

log = get_logger("archiver")
PAGE = 500
LOG_PAGE = 1000

DELETE_MATCH = """-- Remove an archived match from Redis, atomically, and only while it is finished at the version the
-- archive holds (the archiver verified the file first). The keys go before the status-set entries.
-- Returns 'deleted' | 'gone' (no meta and no log: only the set entries were left) | 'orphan' (a log
-- without its meta: left alone) | 'not_finished' | 'changed' (the version moved on: archive again).
-- KEYS: meta, log, finished set, pending set, then the match's other keys (secret, seen, sent, results,
--       updates, views)
-- ARGV: match id, the version of the archive's last event
local status = redis.call('HGET', KEYS[1], 'status')
if not status then
  if redis.call('EXISTS', KEYS[2]) == 1 then
    return 'orphan'
  end
  redis.call('ZREM', KEYS[3], ARGV[1])
  redis.call('ZREM', KEYS[4], ARGV[1])
  return 'gone'
end
if status ~= 'finished' then
  return 'not_finished'
end
if (redis.call('HGET', KEYS[1], 'version') or '0') ~= ARGV[2] then
  return 'changed'
end
for i = 5, #KEYS do
  redis.call('UNLINK', KEYS[i])
end
redis.call('UNLINK', KEYS[2])
redis.call('UNLINK', KEYS[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
return 'deleted'
"""


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
    return f"{keys.tag(partition)}:archive:pending"


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
        self._delete = r.register_script(DELETE_MATCH)
        self.open_expiry = OpenExpiry(r, self.keys, settings.open_ttl_s)
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
            removed = 0
            for match_id in self.due(partition, ids, report):
                try:
                    if self.archive(match_id):
                        report.archived.append(match_id)
                        removed += 1
                except (ArchiveError, LogFileError, ValueError) as e:
                    metrics.ARCHIVE_ERRORS.inc()
                    report.errors[match_id] = str(e)
                    log.warning("cannot archive match", match_id=match_id, error=str(e))
            offset += len(ids) - removed
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
        """Archive one finished match and remove it from Redis; True when its keys were removed."""
        match = self.load(match_id)
        if match is None:
            self.remove(match_id, None)
            return False
        self.write(match)
        fault_point("archive_written")
        return self.remove(match_id, match)

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

    def remove(self, match_id: str, match: MatchLog | None) -> bool:
        """Remove the match's keys, then its set entries (one script, only if finished at the archived
        version). ``match`` None: only set entries of a match whose keys are gone."""
        k = self.keys
        partition = k.partition(match_id)
        seats = match.meta.seats if match is not None and match.meta is not None else 0
        keys = [k.meta(match_id), k.log(match_id), k.matches(partition, "finished"), pending_key(k, partition),
                k.secret(match_id), k.seen(match_id), k.sent(match_id), k.results(match_id), k.updates(match_id),
                k.view(match_id, "public"), *(k.view(match_id, str(s)) for s in range(seats))]
        version = match.events[-1].version if match is not None and match.events else 0
        outcome = text(self._delete(keys=keys, args=[match_id, version]))
        if outcome == "deleted":
            metrics.ARCHIVED_MATCHES.inc()
            log.info("match archived", match_id=match_id, events=len(match.events) if match else 0)
            return True
        if outcome == "gone":
            return False
        raise ArchiveError(f"match {match_id} not removed from Redis: {outcome}")
