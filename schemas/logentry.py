"""How an event is kept in a match's log in Redis: a compact positional array.

An entry of ``match:<id>:log`` (entry id ``<version>-0``, field ``e``) is the msgpack array

    [type, body, visible_to, redacted, cause, schema_version]

with trailing nils left out. The match id is the key's and the version the entry id's, so neither is
repeated per event; field names are positions; ``schema_version`` is left out when it is 1. ``cause`` says
which command caused the event:

- ``[command_id, seat, command]``: the first event of a command (``command`` as ``[type, body]``, nil
  when the event does not carry it);
- ``0``: none (a set-up event written first in its append);
- absent or nil: the same as the entry before it (a command's further events; set-up events after the first).

The first entry of every append names its cause, so an append stands on its own. A reader of a log slice
that starts on an entry without a cause looks back for it (:func:`cause_needed`, :func:`first_cause`). The
partition feeds carry the whole :class:`~schemas.envelopes.EventEnvelope` instead (``schemas.codec.pack``):
their readers see single events from many matches. Entries written before this shape (maps with every
field named) are read as before; both go through the upcasters (:mod:`schemas.upcast`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import msgpack

from schemas.codec import DecodeError, unpack_obj
from schemas.envelopes import EVENT_SCHEMA_VERSION, EventEnvelope

NO_CAUSE = 0
FIRST_COMPACT_VERSION = 1  # the schema version an entry without one has
Cause = tuple[str, int | None]  # (command id, seat): what a continuation entry inherits


def pack_entries(events: Sequence[EventEnvelope]) -> list[bytes]:
    """The log entries of consecutive events (of one match, in version order). The first always names its
    cause, so the entries stand on their own after whatever the log held before them."""
    out: list[bytes] = []
    previous: Cause | None = None
    for i, e in enumerate(events):
        here = (e.command_id, e.seat) if e.command_id is not None else None
        cause: Any = None  # the same as the entry before
        if i == 0 or here != previous or (here is not None and e.command is not None):
            if here is None:
                cause = NO_CAUSE
            else:
                command = [e.command.get("type"), e.command.get("body")] if e.command is not None else None
                cause = [e.command_id, e.seat, command]
        previous = here
        sv = None if e.schema_version == FIRST_COMPACT_VERSION else e.schema_version
        fields: list[Any] = [e.type, e.body, e.visible_to, e.redacted, cause, sv]
        while fields[-1] is None:
            fields.pop()
        out.append(msgpack.packb(fields, use_bin_type=True))
    return out


def cause_of(raw: Any) -> Cause | None:
    """The cause a raw entry (array or old map) names and passes on to the entries after it that name none:
    None for no command. (For an entry that names none itself, see :func:`cause_needed`.)"""
    if isinstance(raw, dict):
        cid = raw.get("command_id")
        return (cid, raw.get("seat")) if isinstance(cid, str) else None
    if isinstance(raw, list) and len(raw) > 4 and isinstance(raw[4], list) and raw[4]:
        cid = raw[4][0]
        seat = raw[4][1] if len(raw[4]) > 1 else None
        return (cid, seat) if isinstance(cid, str) else None
    return None


def cause_needed(raw: Any) -> bool:
    """Whether a raw entry takes its cause from the entry before it (so a reader starting at it must look
    back)."""
    return isinstance(raw, list) and (len(raw) <= 4 or raw[4] is None)


def first_cause(raws_newest_first: Iterable[Any]) -> tuple[bool, Cause | None]:
    """Looking back from an entry without a cause over the entries before it (newest first): (found, cause) —
    found once an entry that names its cause is met, with that cause. Not found at the log's start: then the
    entries are set-up events and the cause is None."""
    for raw in raws_newest_first:
        if not cause_needed(raw):
            return True, cause_of(raw)
    return False, None


def entry_dict(raw: Any, match_id: str, version: int, inherited: Cause | None) -> dict[str, Any]:
    """A raw entry as the raw event map the upcasters take (old maps are returned as they are).
    ``inherited``: the cause in force before it, for an entry that names none."""
    if isinstance(raw, dict):
        return raw
    if not isinstance(raw, list) or not 1 <= len(raw) <= 6 or not isinstance(raw[0], str):
        raise DecodeError("not a log entry (an array of 1 to 6 fields starting with the type, or a map)")
    etype, body, visible_to, redacted, cause, sv = (*raw, None, None, None, None, None)[:6]
    out: dict[str, Any] = {"match_id": match_id, "version": version, "type": etype,
                           "schema_version": FIRST_COMPACT_VERSION if sv is None else sv,
                           "body": {} if body is None else body}
    if visible_to is not None:
        out["visible_to"] = visible_to
    if redacted is not None:
        out["redacted"] = redacted
    if cause is None:
        cause = [*inherited, None] if inherited is not None else NO_CAUSE
    if isinstance(cause, list) and 1 <= len(cause) <= 3:
        cid, seat, command = (*cause, None, None)[:3]
        out["command_id"], out["seat"] = cid, seat
        if command is not None:
            if not isinstance(command, list) or len(command) != 2:
                raise DecodeError(f"log entry {version}: a command is [type, body]")
            out["command"] = {"type": command[0], "body": command[1]}
    elif cause != NO_CAUSE or isinstance(cause, bool):
        raise DecodeError(f"log entry {version}: cause must be absent, 0 or [command_id, seat, command]")
    return out


def decode_slice(match_id: str, entries: Sequence[tuple[int, Any]],
                 inherited: Cause | None = None) -> tuple[list[dict[str, Any]], Cause | None]:
    """``(version, raw)`` log entries of one match, consecutive and in order (``raw`` as unpacked), as raw
    event maps for the upcasters, and the cause to pass on to the slice after them. ``inherited``: the cause
    in force before the first entry (:func:`first_cause` of the entries before it), needed when that entry
    continues a command."""
    out = []
    for version, raw in entries:
        out.append(entry_dict(raw, match_id, version, inherited))
        if not cause_needed(raw):
            inherited = cause_of(raw)
    return out, inherited


def entry_version(entry_id: bytes | str) -> int:
    """The version a log entry id (``<version>-0``) stands for."""
    text = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    return int(text.split("-", 1)[0])


LOOKBACK = 32  # entries fetched per step when a reader looks back for a continuation's cause


def load_slice(match_id: str, entries: Sequence[tuple[bytes, dict[bytes, bytes]]],
               game: str | Callable[[], str | None] | None, inherited: Cause | None = None,
               field: bytes = b"e") -> tuple[list[EventEnvelope], Cause | None]:
    """A range reply of a match's log (``[(entry id, {field: data})]``, consecutive, in order) as current
    envelopes, and the cause to pass on to the next slice. ``game`` (or a function returning it, called
    only then) is needed only when an entry is older than the current schema, for the game's upcasters."""
    from schemas.upcast import load_event  # (schemas.upcast imports the codec; no cycle at import time)

    raws = [(entry_version(i), unpack_obj(fields[field])) for i, fields in entries]
    dicts, passed_on = decode_slice(match_id, raws, inherited)
    if callable(game):
        game = game() if any(d.get("schema_version", 0) != EVENT_SCHEMA_VERSION for d in dicts) else None
    return [load_event(d, game) for d in dicts], passed_on


def starts_inside_command(entries: Sequence[tuple[bytes, dict[bytes, bytes]]], field: bytes = b"e") -> bool:
    """Whether a range reply's first entry continues a command (its reader must look back for the cause)."""
    return bool(entries) and cause_needed(unpack_obj(entries[0][1][field]))


def log_and_feed(events: Sequence[EventEnvelope]) -> list[bytes]:
    """Per event, its log entry and its whole envelope for the partition feed, flat: what the create and
    append scripts take."""
    from schemas.codec import pack

    return [data for pair in zip(pack_entries(events), (pack(e) for e in events), strict=True) for data in pair]
