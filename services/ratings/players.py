"""Registered players and their API keys, and the link from a joined seat to its player.

A player (a bot or a person) registers a name with the gateway (``POST /players``) and gets an API key, shown
once; only its sha256 is stored (``<prefix>:{players}:keys``: hash -> name; ``names``: name -> record). Joining
a seat with the key (header :data:`API_KEY_HEADER`) links the seat to the player: the seat's claim and the link
are one script (:data:`CLAIM_PLAYER_SEAT`, which runs the pipeline's ``claim_seat.lua`` itself, so a seat is
never claimed without its link nor linked without its claim). The link goes to the partition's
``seat-players`` hash (:meth:`services.keys.Keys.seat_players`), which outlives the match's archiving: the
ratings are rebuilt from it and the match logs, in Redis or in the archive.

A match may be created with seats reserved for players (``reserve:<seat>`` fields of its meta hash, written by
the create script with the rest of the meta): such a *rated seat* is joined only with its player's key. An API
key is never a seat token (a seat token is ``<seat>.<48 hex>``; a key is ``ak_<48 hex>``), so it cannot be
used to act for any seat, its player's own included: acting takes the seat token the join returned.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from collections.abc import Mapping
from typing import Any

from services.keys import Keys
from services.pipeline.redis_backend import lua

API_KEY_HEADER = "X-Airship-Key"
KEY_PATTERN = re.compile(r"^ak_[0-9a-f]{48}$")
RESERVE = "reserve:"  # meta hash field per reserved seat: the player's name
ARENA_CLAIM_BY = "arena_claim_by"  # meta hash field of an arena match: its seats must be claimed by then (ms)
ARENA_DISSOLVED = "arena_dissolved"  # set (to when) once an arena match was dissolved: no seat is claimed any more


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


def claim_player_seat_script() -> str:
    """``claim_seat.lua`` wrapped: first the player checks, then the claim, then the link, all in one script."""
    claim = "\n".join(line for line in lua("claim_seat").splitlines() if not line.startswith("#!"))
    return f"""#!lua
-- Claim a seat for a registered player and link it to the player, atomically.
-- Returns the meta hash (HGETALL) when done; nil when claim_seat.lua refuses (unknown match or seat, seat
-- taken); -1 when the seat is reserved for another player; -2 when the player already holds a seat of the match;
-- -3 when the match is an arena match whose seats were not all collected in time (dissolved, or past its claim
-- deadline: services.ratings.arena).
-- KEYS: meta, open set, running set, finished set (as claim_seat.lua), the partition's seat-players hash
-- ARGV: seat, credential hash, updates maxlen (as claim_seat.lua), player name, match id, now (ms)
local function claim()
{claim}
end
local checks = redis.call('HMGET', KEYS[1], '{RESERVE}' .. ARGV[1], '{ARENA_CLAIM_BY}', '{ARENA_DISSOLVED}')
local reserved = checks[1]
if reserved and reserved ~= ARGV[4] then
  return -1
end
if checks[3] or (checks[2] and tonumber(ARGV[6]) > tonumber(checks[2])) then
  return -3
end
if redis.call('HEXISTS', KEYS[5], ARGV[5] .. '.p.' .. ARGV[4]) == 1 then
  return -2
end
local meta = claim()
if not meta then
  return meta
end
redis.call('HSET', KEYS[5], ARGV[5] .. '.' .. ARGV[1], ARGV[4], ARGV[5] .. '.p.' .. ARGV[4], ARGV[1],
           ARGV[5] .. '.created', redis.call('HGET', KEYS[1], 'created'))
return meta
"""


def claim_keys(keys: Keys, match_id: str) -> list[str]:
    p = keys.partition(match_id)
    return [keys.meta(match_id), *(keys.matches(p, s) for s in ("open", "running", "finished")),
            keys.seat_players(p)]


def claim_args(seat: int, credential_hash: str, player: str, match_id: str, updates_maxlen: int) -> list[Any]:
    """The ARGV of :func:`claim_player_seat_script`, in its order (now: this gateway's clock)."""
    return [seat, credential_hash, updates_maxlen, player, match_id, int(time.time() * 1000)]


def link_fields(match_id: str, seats: int) -> list[str]:
    """The ``seat-players`` fields to HMGET for a match's links: one per seat, then its creation time."""
    return [f"{match_id}.{seat}" for seat in range(seats)] + [f"{match_id}.created"]


def links_from(values: list[Any]) -> tuple[dict[int, str], int]:
    """The HMGET reply of :func:`link_fields` as (seat -> player, created ms)."""
    *seats, created = values
    links = {seat: _text(v) for seat, v in enumerate(seats) if v is not None}
    return links, int(created) if created is not None else 0


def reserve_fields(players: Mapping[int, str]) -> list[str]:
    """Meta hash field/value pairs reserving seats for players (written by the create script)."""
    return [x for seat, name in sorted(players.items()) for x in (f"{RESERVE}{seat}", name)]


def reservations(meta_hash: Mapping[bytes, bytes]) -> dict[int, str]:
    return {int(k[len(RESERVE):]): _text(v) for k, v in meta_hash.items() if k.startswith(RESERVE.encode())}


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
