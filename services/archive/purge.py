"""The archiver removes nothing itself (#35: its Redis user may not delete a match key): it publishes the system
command ``match.purge`` on the match's partition and a worker decides it (``lua/purge.lua``), removing the match's
keys and set entries only if the match is finished at the archived version, or open past the worker's
``AIRSHIP_OPEN_TTL_S``; anything else deletes nothing. The archiver then waits (``archive_purge_wait_s``) until it
sees the removal: a finished match's meta gone, an open match's open-set entry gone. What it did not see removed
stays in Redis, and in its set, for the next pass, which publishes the purge again (removing twice is a no-op)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, Literal

import redis

from schemas.codec import pack
from schemas.envelopes import CommandEnvelope
from schemas.game_schemas import PURGE_COMMAND
from services.keys import Keys
from services.pipeline.redis_streams import FIELD

POLL_S = 0.02
Kind = Literal["finished", "open"]


def purge_id(status: Kind, version: int) -> str:
    """The command id of a purge (a seat's ids are ``<seat>.<key>``): one per kind and version."""
    return f"purge-{status}-v{version}"


def publish_purge(r: redis.Redis, keys: Keys, match_id: str, status: Kind, version: int = 0) -> None:
    """Ask the workers to remove the match (finished at ``version``, or open and expired)."""
    envelope = CommandEnvelope(command_id=purge_id(status, version), match_id=match_id, seat=0, type=PURGE_COMMAND,
                               body={"status": status, "version": version})
    fields: dict[Any, Any] = {FIELD: pack(envelope)}
    r.xadd(keys.commands(keys.partition(match_id)), fields)


def wait_purged(r: redis.Redis, keys: Keys, match_ids: Sequence[str], status: Kind, wait_s: float) -> set[str]:
    """Those of ``match_ids`` whose purge a worker decided within ``wait_s``: for finished matches, the meta is
    gone (the script removes it with every other key, atomically); for open ones, the open-set entry is gone (it
    goes with the keys, or alone when the match began meanwhile: see :func:`removed`)."""
    left, done = list(match_ids), set[str]()
    deadline = time.monotonic() + wait_s
    while left:
        pipe = r.pipeline(transaction=False)
        for match_id in left:
            if status == "finished":
                pipe.exists(keys.meta(match_id))
            else:
                pipe.zscore(keys.match_matches(match_id, "open"), match_id)
        for match_id, reply in zip(left, pipe.execute(), strict=True):
            if (reply == 0) if status == "finished" else (reply is None):
                done.add(match_id)
        left = [m for m in left if m not in done]
        if not left or time.monotonic() >= deadline:
            break
        time.sleep(POLL_S)
    return done


def removed(r: redis.Redis, keys: Keys, match_ids: Sequence[str]) -> list[str]:
    """Those of ``match_ids`` whose meta is gone."""
    pipe = r.pipeline(transaction=False)
    for match_id in match_ids:
        pipe.exists(keys.meta(match_id))
    return [m for m, n in zip(match_ids, pipe.execute(), strict=True) if n == 0]
