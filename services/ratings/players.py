"""Registered players and their API keys, and the link from a joined seat to its player.

A player (a bot or a person) registers a name with the gateway (``POST /players``) and gets an API key, shown
once; only its sha256 is stored (``<prefix>:{players}:keys``: hash -> name; ``names``: name -> record). Joining
a seat with the key (header :data:`API_KEY_HEADER`) links the seat to the player: the gateway publishes
``match.join`` naming the player, and the worker's ``lua/join.lua`` claims the seat and writes the link in one
script (a seat is never claimed without its link nor linked without its claim). The link goes to the partition's
``seat-players`` hash (:meth:`services.keys.Keys.seat_players`), which outlives the match's archiving: the
ratings are rebuilt from it and the match logs, in Redis or in the archive.

A match may be created with seats reserved for players (``reserve:<seat>`` fields of its meta hash, written by
the worker's ``match.create`` with the rest of the meta): such a *rated seat* is joined only with its player's
key. An API
key is never a seat token (a seat token is ``<seat>.<48 hex>``; a key is ``ak_<48 hex>``), so it cannot be
used to act for any seat, its player's own included: acting takes the seat token the join returned.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Mapping
from typing import Any

from services.pipeline.lobby import ARENA_CLAIM_BY as ARENA_CLAIM_BY  # (the pipeline writes and checks them)
from services.pipeline.lobby import RESERVE as RESERVE

API_KEY_HEADER = "X-Airship-Key"
KEY_PATTERN = re.compile(r"^ak_[0-9a-f]{48}$")
ARENA_DISSOLVED = "arena_dissolved"  # gw hash field, set (to when) once an arena match was dissolved: no seat is
# claimed any more (lua/join.lua reads it)


def new_api_key() -> str:
    return f"ak_{secrets.token_hex(24)}"


def key_hash(api_key: str) -> str:
    return hashlib.sha256(api_key.encode()).hexdigest()


def well_formed_key(api_key: str) -> bool:
    return bool(KEY_PATTERN.fullmatch(api_key))


REGISTER = """#!lua
-- Register a player: its record (which holds its API key's hash) under its name, its API key's hash -> its name.
-- 0 if the name is taken (or, never in practice, the key's hash is). Both written insert-only (HSETNX): the
-- gateway's Redis user may not overwrite or delete a player or a key (infra/redis/users.acl), and a key is a
-- player's only if the player's record names it too (:func:`key_is_players`).
-- KEYS: names, keys. ARGV: name, key hash, record (packed)
if redis.call('HEXISTS', KEYS[2], ARGV[2]) == 1 then
  return 0
end
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[3]) == 0 then
  return 0
end
redis.call('HSETNX', KEYS[2], ARGV[2], ARGV[1])
return 1
"""


def player_record(created_ms: int, api_key_hash: str) -> dict[str, Any]:
    """A player's record (``names`` hash, packed): when it registered and the hash of its API key."""
    return {"created": created_ms, "key": api_key_hash}


def key_is_players(record: Mapping[str, Any] | None, api_key_hash: str) -> bool:
    """Whether the key whose hash is ``api_key_hash`` (found in ``keys``) belongs to the player of ``record``: its
    record names that hash. The key -> name entry alone is not enough: a key added to ``keys`` for an existing
    name (``HSETNX`` may add one) opens nothing. A record registered before records held their key (no ``key``)
    accepts the name's key as before."""
    if record is None:
        return False
    return bool(record.get("key", api_key_hash) == api_key_hash)


def reservations(meta_hash: Mapping[bytes, bytes]) -> dict[int, str]:
    return {int(k[len(RESERVE):]): _text(v) for k, v in meta_hash.items() if k.startswith(RESERVE.encode())}


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
