"""Match log files: JSON lines or a msgpack stream, each an optional header and then the events.

The header is the match's metadata without the seat credential hashes: ``{"kind": "meta", "match_id",
"game", "seats", "options", "seed", "status"}``, and for a match with seats linked to registered players also
``"players"`` (seat -> name) and ``"created_ms"`` (older files have neither: read as no links). It holds
the seed, so a file with a header must be handled like the match's secrets (the seed predicts every
shuffle); the public event feed never holds it. After the header comes one
:class:`~schemas.envelopes.EventEnvelope` per line (or per msgpack object), in version order. Files without
the header (older ``airship play --save-log`` output) are read too.
Events are upcast to the current schema version on read (:mod:`schemas.upcast`).
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Literal, cast

import msgpack
from pydantic import ValidationError

from schemas.envelopes import EventEnvelope, MatchMeta
from schemas.upcast import UpcastError, game_of, load_event

Format = Literal["jsonl", "msgpack"]
FORMATS: tuple[Format, ...] = ("jsonl", "msgpack")
HEADER_KIND = "meta"
MSGPACK_SUFFIXES = (".msgpack", ".mpk", ".msgpk", ".mp")
GZIP_MAGIC = b"\x1f\x8b"


class LogFileError(ValueError):
    """A file that is not a readable match log; the message names the line or object."""


@dataclass(frozen=True)
class MatchLog:
    """A match's metadata (None when the file had no header) and its events in version order."""

    meta: MatchMeta | None
    events: list[EventEnvelope] = field(default_factory=list)

    @property
    def game(self) -> str | None:
        if self.meta is not None:
            return self.meta.game
        if self.events and self.events[0].type == "MatchStarted":
            game = self.events[0].body.get("game")
            return game if isinstance(game, str) else None
        return None

    @property
    def match_id(self) -> str | None:
        if self.meta is not None:
            return self.meta.match_id
        return self.events[0].match_id if self.events else None

    @property
    def players(self) -> dict[int, str]:
        """The seat -> registered player links the header carries (empty: none, or a file from before them)."""
        return dict(self.meta.players) if self.meta is not None else {}

    @property
    def seats(self) -> int | None:
        if self.meta is not None:
            return self.meta.seats
        if self.events and self.events[0].type == "MatchStarted":
            seats = self.events[0].body.get("seats")
            return seats if isinstance(seats, int) else None
        return None


def public_meta(meta: MatchMeta) -> MatchMeta:
    """The metadata as files hold it: everything but the credential hashes."""
    return meta.model_copy(update={"credential_hashes": {}})


def header(meta: MatchMeta, mode: str = "json") -> dict[str, Any]:
    """The header record. ``players`` and ``created_ms`` (the seat -> registered player links of a rated match and
    its creation time) are written only when the match has links: the header of any other match is what it
    was before they existed."""
    exclude = {"credential_hashes"}
    if not meta.players:
        exclude |= {"players", "created_ms"}
    if meta.clock is None:  # (a clocked match's header names its time control; its log does too: ClockSet)
        exclude |= {"clock"}
    return {"kind": HEADER_KIND, **meta.model_dump(mode=mode, exclude=exclude)}


def guess_format(path: Path, head: bytes = b"") -> Format:
    """The format of a file: by its suffix, else by its first byte (JSON lines start with '{')."""
    if path.suffix.lower() in MSGPACK_SUFFIXES:
        return "msgpack"
    if path.suffix.lower() in (".jsonl", ".json", ".ndjson"):
        return "jsonl"
    stripped = head.lstrip()
    return "jsonl" if not stripped or stripped[:1] == b"{" else "msgpack"


# -- reading ---------------------------------------------------------------------------------------
def _jsonl_records(lines: Iterable[str]) -> Iterator[tuple[str, Any]]:
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            yield f"line {number}", json.loads(line)
        except ValueError as e:
            raise LogFileError(f"line {number}: not JSON ({e})") from e


def _msgpack_records(stream: BinaryIO) -> Iterator[tuple[str, Any]]:
    unpacker = msgpack.Unpacker(stream, raw=False, strict_map_key=False)
    number = 0
    try:
        for number, obj in enumerate(unpacker, 1):
            yield f"object {number}", obj
    except Exception as e:  # msgpack raises several unrelated types on garbage
        raise LogFileError(f"object {number + 1}: not valid msgpack ({e})") from e


def parse_records(records: Iterable[tuple[str, Any]]) -> MatchLog:
    """A match log from raw records (position label, decoded object): an optional header, then events."""
    meta: MatchMeta | None = None
    events: list[EventEnvelope] = []
    game: str | None = None
    for where, obj in records:
        if isinstance(obj, dict) and obj.get("kind") == HEADER_KIND:
            if meta is not None or events:
                raise LogFileError(f"{where}: a match header must come first, and only once")
            fields = {k: v for k, v in obj.items() if k != "kind"}
            try:
                meta = MatchMeta.model_validate(fields)
            except ValidationError as e:
                raise LogFileError(f"{where}: invalid match header: {e.errors(include_url=False)[:3]}") from e
            game = meta.game
            continue
        if game is None:
            game = game_of(obj)
        try:
            events.append(load_event(obj, game))
        except UpcastError as e:
            raise LogFileError(f"{where}: {e}") from e
    return MatchLog(meta, events)


def read_match(path: Path, fmt: Format | None = None) -> MatchLog:
    """Read a match log file (format from ``fmt``, else guessed from the suffix and first byte). A gzip file
    (by its magic bytes, e.g. an archive ``<id>.jsonl.gz``) is read decompressed."""
    try:
        with path.open("rb") as raw:
            if raw.read(2) == GZIP_MAGIC:
                raw.seek(0)
                with gzip.GzipFile(fileobj=raw, mode="rb") as unzipped:
                    return _read_stream(cast(BinaryIO, unzipped), path.with_suffix(""), fmt)
            raw.seek(0)
            return _read_stream(raw, path, fmt)
    except (OSError, EOFError, zlib.error) as e:
        raise LogFileError(f"cannot read {path}: {getattr(e, 'strerror', None) or e}") from e


def parse_jsonl(text: str) -> MatchLog:
    """A match log from the text of a JSON-lines file (e.g. an archive fetched over HTTP, decompressed)."""
    return parse_records(_jsonl_records(text.splitlines()))


def _read_stream(f: BinaryIO, path: Path, fmt: Format | None) -> MatchLog:
    fmt = fmt or guess_format(path, f.read(64))
    f.seek(0)
    if fmt == "msgpack":
        return parse_records(_msgpack_records(f))
    text = (line.decode("utf-8", errors="replace") for line in f)
    return parse_records(_jsonl_records(text))


# -- writing ---------------------------------------------------------------------------------------
def _records(log: MatchLog, mode: str = "json") -> Iterator[dict[str, Any]]:
    """JSON mode for JSON lines; python mode for msgpack, which keeps what JSON cannot (integer keys)."""
    if log.meta is not None:
        yield header(log.meta, mode)
    for envelope in log.events:
        yield envelope.model_dump(mode=mode, exclude_none=True)


def jsonl_lines(log: MatchLog) -> Iterator[str]:
    for record in _records(log):
        yield json.dumps(record, separators=(",", ":"), ensure_ascii=False)


def write_match(path: Path, log: MatchLog, fmt: Format | None = None) -> int:
    """Write ``log`` (header first when it has metadata); returns how many events were written."""
    fmt = fmt or guess_format(path)
    try:
        if fmt == "msgpack":
            with path.open("wb") as fb:
                for record in _records(log, "python"):
                    fb.write(msgpack.packb(record, use_bin_type=True))
        else:
            with path.open("w", encoding="utf-8") as ft:
                for line in jsonl_lines(log):
                    ft.write(line + "\n")
    except OSError as e:
        raise LogFileError(f"cannot write {path}: {e.strerror or e}") from e
    return len(log.events)
