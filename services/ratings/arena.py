"""The arena: registered players queue for rated matches and the service pairs them, so the ladder keeps moving
without anyone creating matches by hand.

A player queues with its API key for a game and the seat counts it accepts (``POST /arena/{game}/queue``) and
gets a **ticket**. It then polls the ticket (``GET /arena/{game}/queue/{ticket}?wait_s=``, a long poll); each
poll keeps the ticket alive for :data:`TICKET_TTL_S` more seconds, and a ticket not polled for that long expires
and leaves the queue. A poll also tries to **pair** the ticket: with enough tickets of *distinct* players queued
for one of its seat counts, those tickets leave the queue together, matched to one new match id and a seat each
(seats in a random order). The gateway then creates that match through the rated-match code path (its seats
reserved for the players, :func:`services.gateway.players.create_reserved`) and claims the polling player's seat
for it with its key, answering the seat's token.

Where it lives: every arena key is in one hash slot (``<prefix>:{arena}:...``, :meth:`services.keys.Keys.arena`),
so the queue and its tickets change only inside Lua scripts (:data:`ENQUEUE`, :data:`POLL`, :data:`LEAVE`), each
atomic on a single Redis and on a cluster. That is what makes pairing safe with any number of gateway replicas:
a ticket is taken by exactly one script run, never by two, and no arena process has to be deployed, kept alive
or elected (the choice against a single pairing process: one more thing to run, and a single point where the
queue stops while it is down). The match itself lives in its partition's slot, so it cannot be created in the
same script: the pairing script writes the match id, the seats and the players into every matched ticket first,
and creating the match from them is idempotent (the create script refuses a match id that exists). A gateway
that dies between the two leaves tickets that say ``matched``; the next poll of any of them creates the match.

The seat token a poll answers is derived from the player's API key, the match id and the seat (an HMAC), and
the seat is claimed with its hash: a poll repeated after a lost answer gets the same token again (the claim
found the seat taken with that very hash), and nothing in Redis lets anyone else compute it (Redis holds the
key's and the token's sha256 only).

Why pairing stays cheap: a ticket is paired when it is queued (the queue answer polls it once) and whenever it is
polled. Since a new group can only form when a ticket arrives, and the arriving ticket's own poll tries every group
it could be part of, a queue for ``n`` seats holds fewer than ``n`` distinct players after each script run, so at
most ``TICKETS_PER_PLAYER * (n - 1)`` tickets: a pairing scans a few dozen entries at most. The polls of waiting
tickets (every :data:`services.gateway.arena.POLL_EVERY_S` of a long poll) are the safety net for a queue answer
that was lost.

Limits, so that one key cannot fill the queue: a player holds at most :data:`TICKETS_PER_PLAYER` waiting tickets
(of all games), the queue holds at most :data:`MAX_WAITING` tickets in all, a player takes at most one seat of
a match (two tickets of one player are never paired together; the seat claim refuses it too), and unpolled
tickets expire. Registering players is itself limited per address (``POST /players``).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from services.keys import Keys

TICKET_TTL_S = 30.0  # a waiting ticket not polled for this long expires
MATCHED_TTL_S = 3600.0  # a matched ticket is kept this long, for its player to collect its seat
TICKETS_PER_PLAYER = 4  # waiting tickets a player may hold at once, all games together
MAX_WAITING = 10_000  # waiting tickets in all
SCAN = 200  # tickets of a queue a pairing looks at (oldest first)
MAX_SEATS = 16

# -- the scripts: KEYS[1] is always the waiting set, so a cluster routes them to the {arena} slot ----------------
# Ticket hash fields: player, game, seats (accepted counts, comma-separated, in order of preference), deadline
# (ms), state (waiting|matched), and once matched: match, seat, players (comma-separated, in seat order). Other
# keys: q:<game>:<n> (sorted set: the tickets queued for n seats, by time queued), p:<player> (sorted set: the
# player's waiting tickets, by deadline), waiting (sorted set: every waiting ticket, by deadline), created:<match>
# (set once the gateway created the match, kept as long as a matched ticket).

_EXPIRE = """
local function forget(prefix, t)
  local h = prefix .. 't:' .. t
  local game = redis.call('HGET', h, 'game')
  local player = redis.call('HGET', h, 'player')
  local seats = redis.call('HGET', h, 'seats')
  if game and seats then
    for n in string.gmatch(seats, '%d+') do
      redis.call('ZREM', prefix .. 'q:' .. game .. ':' .. n, t)
    end
  end
  if player then
    redis.call('ZREM', prefix .. 'p:' .. player, t)
  end
  redis.call('ZREM', prefix .. 'waiting', t)
  if redis.call('HGET', h, 'state') ~= 'matched' then
    redis.call('DEL', h)
  end
end
local function expire(prefix, now, batch)
  local old = redis.call('ZRANGEBYSCORE', prefix .. 'waiting', '-inf', '(' .. now, 'LIMIT', 0, batch)
  for _, t in ipairs(old) do
    forget(prefix, t)
  end
end
"""

ENQUEUE = """#!lua
-- Queue a ticket. Returns 1, or -1 when the player holds its limit of waiting tickets, -2 when the queue is full.
-- KEYS: waiting set. ARGV: prefix, now ms, ticket, player, game, ttl ms, tickets per player, max waiting,
-- accepted seat counts (comma-separated, in order of preference)
""" + _EXPIRE + """
local prefix, now, t, player, game = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4], ARGV[5]
expire(prefix, now, 100)
local mine = prefix .. 'p:' .. player
if redis.call('ZCARD', mine) >= tonumber(ARGV[7]) then
  return -1
end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[8]) then
  return -2
end
local deadline = now + tonumber(ARGV[6])
redis.call('HSET', prefix .. 't:' .. t, 'player', player, 'game', game, 'seats', ARGV[9], 'deadline', deadline,
           'state', 'waiting')
redis.call('ZADD', KEYS[1], deadline, t)
redis.call('ZADD', mine, deadline, t)
for n in string.gmatch(ARGV[9], '%d+') do
  redis.call('ZADD', prefix .. 'q:' .. game .. ':' .. n, now, t)
end
return 1
"""

POLL = """#!lua
-- Keep a ticket alive and try to pair it. Returns {0} for an unknown (or expired) ticket or one of another player;
-- {1, deadline} while it waits; {2, match, seat, players, created (0|1)} once matched.
-- KEYS: waiting set. ARGV: prefix, now ms, ticket, player, ttl ms, a new match id, matched ttl ms, scan,
-- a random permutation of 0..MAX_SEATS-1 (comma-separated), to seat the players
""" + _EXPIRE + """
local prefix, now, t, player = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4]
expire(prefix, now, 100)
local h = prefix .. 't:' .. t
local fields = redis.call('HMGET', h, 'player', 'game', 'seats', 'state', 'match', 'seat', 'players')
if not fields[1] or fields[1] ~= player then
  return {0}
end
if fields[4] == 'matched' then
  return {2, fields[5], tonumber(fields[6]), fields[7], redis.call('EXISTS', prefix .. 'created:' .. fields[5])}
end
local game = fields[2]
local deadline = now + tonumber(ARGV[5])
redis.call('HSET', h, 'deadline', deadline)
redis.call('ZADD', KEYS[1], deadline, t)
redis.call('ZADD', prefix .. 'p:' .. player, deadline, t)
for n in string.gmatch(fields[3], '%d+') do
  local need = tonumber(n)
  local group, players, taken = {t}, {player}, {[player] = true}
  local queued = redis.call('ZRANGE', prefix .. 'q:' .. game .. ':' .. n, 0, tonumber(ARGV[8]) - 1)
  for _, other in ipairs(queued) do
    if #group >= need then
      break
    end
    if other ~= t then
      local o = redis.call('HMGET', prefix .. 't:' .. other, 'player', 'deadline')
      local who = o[1]
      if who and not taken[who] and tonumber(o[2]) >= now then
        taken[who] = true
        group[#group + 1] = other
        players[#players + 1] = who
      end
    end
  end
  if #group == need then
    local order = {}
    for s in string.gmatch(ARGV[9], '%d+') do
      if tonumber(s) < need then
        order[#order + 1] = tonumber(s)
      end
    end
    local seated = {}
    for i = 1, need do
      seated[order[i] + 1] = players[i]
    end
    local names = table.concat(seated, ',')
    local mine = 0
    for i = 1, need do
      local th = prefix .. 't:' .. group[i]
      redis.call('HSET', th, 'state', 'matched', 'match', ARGV[6], 'seat', order[i], 'players', names)
      forget(prefix, group[i])
      redis.call('PEXPIRE', th, tonumber(ARGV[7]))
      if group[i] == t then
        mine = order[i]
      end
    end
    return {2, ARGV[6], mine, names, 0}
  end
end
return {1, deadline}
"""

LEAVE = """#!lua
-- Take a waiting ticket out of the queue. Returns 1, 0 when it is unknown (or another player's), -1 when matched.
-- KEYS: waiting set. ARGV: prefix, now ms, ticket, player
""" + _EXPIRE + """
local prefix, t, player = ARGV[1], ARGV[3], ARGV[4]
local h = prefix .. 't:' .. t
local fields = redis.call('HMGET', h, 'player', 'state')
if not fields[1] or fields[1] ~= player then
  return 0
end
if fields[2] == 'matched' then
  return -1
end
forget(prefix, t)
return 1
"""

STATUS = """#!lua
-- The waiting tickets of a game per seat count (after removing the expired ones).
-- KEYS: waiting set. ARGV: prefix, now ms, game, seat counts...
""" + _EXPIRE + """
local prefix, now, game = ARGV[1], tonumber(ARGV[2]), ARGV[3]
expire(prefix, now, 100)
local out = {}
for i = 4, #ARGV do
  out[#out + 1] = redis.call('ZCARD', prefix .. 'q:' .. game .. ':' .. ARGV[i])
end
return out
"""


def prefix(keys: Keys) -> str:
    """The arena's key prefix (its hash tag included): every arena key is this plus a suffix."""
    return keys.arena("")


def new_ticket() -> str:
    return secrets.token_hex(16)


def new_match_id() -> str:
    return secrets.token_hex(8)


def seat_order() -> str:
    """A random permutation of the seats, for the pairing script to seat a group in."""
    order = list(range(MAX_SEATS))
    secrets.SystemRandom().shuffle(order)
    return ",".join(map(str, order))


def seat_token(api_key: str, match_id: str, seat: int) -> str:
    """The seat token of an arena seat: ``<seat>.<48 hex>`` like any, derived from the player's API key so that a
    poll repeated after a lost answer gets the same one (only whoever holds the key can compute it)."""
    digest = hmac.new(api_key.encode(), f"arena:{match_id}:{seat}".encode(), hashlib.sha256).hexdigest()
    return f"{seat}.{digest[:48]}"


@dataclass(frozen=True)
class Matched:
    match_id: str
    seat: int
    players: list[str]  # in seat order
    created: bool  # the match was created (by this gateway or another)


@dataclass(frozen=True)
class Waiting:
    deadline_ms: int


def parse_poll(reply: Sequence[object]) -> Matched | Waiting | None:
    """The POLL script's reply: None for an unknown ticket (or another player's)."""
    kind = int(reply[0])  # type: ignore[call-overload]
    if kind == 0:
        return None
    if kind == 1:
        return Waiting(int(reply[1]))  # type: ignore[call-overload]
    match_id, seat, players, created = (_text(x) for x in reply[1:5])
    return Matched(match_id, int(seat), players.split(","), created == "1")


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
