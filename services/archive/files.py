"""The archive on disk: ``<archive_dir>/<partition>/<match_id>.jsonl.gz``, a gzip-compressed JSON-lines match
log (:mod:`services.replay.files`: the header with the seed, then every event), written atomically."""

from __future__ import annotations

import gzip
import os
import re
from pathlib import Path

from services.keys import partition_of
from services.replay.files import LogFileError, MatchLog, jsonl_lines, read_match

SUFFIX = ".jsonl.gz"
_SAFE_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def archive_path(root: Path, match_id: str, partitions: int) -> Path:
    """Where the archive of ``match_id`` lives (the partition directory keeps directories small)."""
    if not _SAFE_ID.fullmatch(match_id):
        raise ValueError(f"match id {match_id!r} cannot name an archive file")
    return root / str(partition_of(match_id, partitions)) / f"{match_id}{SUFFIX}"


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_archive(path: Path, log: MatchLog) -> None:
    """Write ``log`` to ``path`` all or nothing: a temporary file in the same directory, fsync, rename over
    ``path``, fsync the directory. A crash leaves the old file (or none) and at most a stale temporary."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        with tmp.open("wb") as raw:
            with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
                for line in jsonl_lines(log):
                    gz.write(line.encode("utf-8") + b"\n")
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(tmp, path)
        _fsync_dir(path.parent)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise LogFileError(f"cannot write {path}: {e.strerror or e}") from e


def read_archive(path: Path) -> MatchLog | None:
    """The archived match, or None when there is no archive file (unreadable files raise LogFileError)."""
    if not path.is_file():
        return None
    return read_match(path, "jsonl")
