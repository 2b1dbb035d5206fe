"""Moving a match between an event store and files: ``airship export`` and ``airship import``.

Export writes the match header (metadata without the credential hashes) and the whole log. Import
stores the header and events as a new match through :meth:`EventStore.create_match`, so the events go
onto the feed and the projector builds the views as for any match; under a new id every event gets the
new match id and nothing else changes. Seats are not joined after an import (the credential hashes are
never exported): an unfinished imported match is continued by joining its seats again.
"""

from __future__ import annotations

from pathlib import Path

from schemas.envelopes import EventEnvelope, MatchMeta
from services.games.errors import BadOptions
from services.pipeline.ports import EventStore
from services.replay.files import Format, MatchLog, public_meta, read_match, write_match
from services.replay.stepper import sequence_problem

PAGE = 1000


def load_match(store: EventStore, match_id: str) -> MatchLog:
    """A match's header (with the secret seed: exports are for operators) and whole log, read in pages."""
    meta = store.meta(match_id)
    if meta is None:
        raise BadOptions(f"no match '{match_id}'")
    if meta.seed is None:
        meta = meta.model_copy(update={"seed": store.seed(match_id)})
    events: list[EventEnvelope] = []
    while True:
        page = store.read_log(match_id, after=len(events), limit=PAGE)
        events.extend(page)
        if len(page) < PAGE:
            break
    return MatchLog(public_meta(meta), events)


def export_match(store: EventStore, match_id: str, path: Path, fmt: Format | None = None) -> int:
    """Write a match to a file; returns how many events were written."""
    return write_match(path, load_match(store, match_id), fmt)


def import_log(store: EventStore, log: MatchLog, new_id: str | None = None) -> MatchMeta:
    """Store a match log as a match (under ``new_id`` if given). Needs the header (game, seats, seed)."""
    if log.meta is None:
        raise BadOptions("the file has no match header (game, seats, seed), so it cannot become a match; "
                         "files written by 'airship export' and 'airship play --save-log' have one")
    match_id = new_id or log.meta.match_id
    meta = log.meta.model_copy(update={"match_id": match_id, "credential_hashes": {}})
    problem = sequence_problem(log.events)
    if problem is not None:
        raise BadOptions(f"the log is broken at version {problem[0]}: {problem[1]}")
    events = [e.model_copy(update={"match_id": match_id}) for e in log.events]
    if not store.create_match(meta, events):
        raise BadOptions(f"match id '{match_id}' is taken; choose another with --as")
    return meta


def import_match(store: EventStore, path: Path, new_id: str | None = None, fmt: Format | None = None) -> MatchMeta:
    return import_log(store, read_match(path, fmt), new_id)
