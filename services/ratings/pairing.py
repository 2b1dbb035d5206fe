"""The arena's queue and pairing (the gateway's routes are services/gateway/arena.py, a player's loop
services/bots/arena_player.py): registered players queue for rated matches and the service pairs them, so the
ladder keeps moving without anyone creating matches by hand.

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

Limits, so that one key cannot fill the queue: a player holds at most ``AIRSHIP_ARENA_TICKETS_PER_PLAYER`` open
tickets (waiting, or matched to a match that has not begun; of all games together), the queue holds at most
:data:`MAX_WAITING` tickets in all, a player takes at most one seat of a match (two tickets of one player are
never paired together; the seat claim refuses it too), and unpolled tickets expire. Registering players is itself
limited per address (``POST /players``, ``AIRSHIP_GATEWAY_REGISTER_PER_HOUR`` per address or IPv6 /64).

**Collecting the seats, or dissolving the match** (the answer to queue poisoning: a few free names queued for
every seat count but never playing would otherwise capture each real player who comes into a match that never
begins). A pairing gives the match a *claim deadline* (``AIRSHIP_ARENA_CLAIM_S`` after it) and records it in
``m:<match>`` and the ``pending`` set; the match is created with it (meta field ``arena_claim_by``), and the seat
claim refuses a seat after it. A player collects its seat by polling its matched ticket. The poll whose claim
begins the match (the last seat) settles the match as begun (:data:`SETTLE` 'started': its tickets stop counting
as the players' open ones). Any arena request on any gateway first looks for matches past their deadline (and
:data:`SWEEP_GRACE_MS`, for the gateways' clocks) and settles each in two idempotent scripts:
:data:`DISSOLVE` on the match's slot marks a match still open as dissolved (``arena_dissolved``: no seat is
claimed from then on, so the collected seats it answers are final; and it goes first in its open set, for the
archiver to remove at its next pass: nothing is rated, nobody is held in it), then :data:`SETTLE` on the arena's
slot puts each collected ticket back in the queue *at its front* (the same ticket id, waiting again,
``requeued`` counted) and lapses the others: their players may not queue for ``AIRSHIP_ARENA_NO_SHOW_S``. Two
gateways doing it at once get the same answers from DISSOLVE; the first SETTLE removes the match's record and
the second finds nothing to do. A pairing whose match nobody created ('gone': no seat was collected) lapses
every ticket; a gateway that would create it past the deadline refuses to.
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
TICKETS_PER_PLAYER = 2  # AIRSHIP_ARENA_TICKETS_PER_PLAYER's default: open tickets per player, all games together
SWEEP_GRACE_MS = 3000  # a match is dissolved this long after its claim deadline (gateways' clocks may differ)
FRONT = 10**13  # a requeued ticket's queue score is its first queue time less this: ahead of every fresh ticket
MAX_WAITING = 10_000  # waiting tickets in all
SCAN = 200  # tickets of a queue a pairing looks at (oldest first)
MAX_SEATS = 16

# -- the scripts: KEYS[1] is always the waiting set, so a cluster routes them to the {arena} slot ----------------
# Ticket hash fields: player, game, seats (accepted counts, comma-separated, in order of preference), deadline
# (ms), queued (ms, when first queued), requeued (how often its match was dissolved), state
# (waiting|matched|lapsed), and once matched: match, seat, players (comma-separated, in seat order), claim_by (ms).
# Other keys: q:<game>:<n> (sorted set: the tickets queued for n seats, by time queued; a requeued ticket ahead of
# all), p:<player> (sorted set: the player's open tickets: waiting ones by deadline, matched ones until their match
# begins or is dissolved), waiting (sorted set: every waiting ticket, by deadline), created:<match> (set once the
# gateway created the match, kept as long as a matched ticket), m:<match> (hash: game, tickets in seat order,
# claim_by; while the match has not begun), pending (sorted set: those matches by claim deadline), ban:<player>
# (a no-show's cooldown: the time it ends, expiring then).

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
-- Queue a ticket. Returns 1, or -1 when the player holds its limit of open tickets, -2 when the queue is full,
-- -3 while the player is barred for not collecting a seat (its ban:<player> key says until when).
-- KEYS: waiting set. ARGV: prefix, now ms, ticket, player, game, ttl ms, tickets per player, max waiting,
-- accepted seat counts (comma-separated, in order of preference)
""" + _EXPIRE + """
local prefix, now, t, player, game = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4], ARGV[5]
expire(prefix, now, 100)
local barred = redis.call('GET', prefix .. 'ban:' .. player)
if barred and tonumber(barred) > now then
  return -3
end
local mine = prefix .. 'p:' .. player
for _, other in ipairs(redis.call('ZRANGE', mine, 0, -1)) do
  if redis.call('EXISTS', prefix .. 't:' .. other) == 0 then  -- a matched ticket whose keys expired
    redis.call('ZREM', mine, other)
  end
end
if redis.call('ZCARD', mine) >= tonumber(ARGV[7]) then
  return -1
end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[8]) then
  return -2
end
local deadline = now + tonumber(ARGV[6])
redis.call('HSET', prefix .. 't:' .. t, 'player', player, 'game', game, 'seats', ARGV[9], 'deadline', deadline,
           'state', 'waiting', 'queued', now, 'requeued', 0)
redis.call('ZADD', KEYS[1], deadline, t)
redis.call('ZADD', mine, deadline, t)
for n in string.gmatch(ARGV[9], '%d+') do
  redis.call('ZADD', prefix .. 'q:' .. game .. ':' .. n, now, t)
end
return 1
"""

POLL = """#!lua
-- Keep a ticket alive and try to pair it. Returns {0} for an unknown (or expired) ticket or one of another player;
-- {1, deadline, requeued} while it waits; {2, match, seat, players, created (0|1), claim_by} once matched;
-- {3, match} when its seat was not collected in time (the match was dissolved without it).
-- KEYS: waiting set. ARGV: prefix, now ms, ticket, player, ttl ms, a new match id, matched ttl ms, scan,
-- a random permutation of 0..MAX_SEATS-1 (comma-separated), to seat the players, claim ms
""" + _EXPIRE + """
local prefix, now, t, player = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4]
expire(prefix, now, 100)
local h = prefix .. 't:' .. t
local fields = redis.call('HMGET', h, 'player', 'game', 'seats', 'state', 'match', 'seat', 'players', 'claim_by',
                          'requeued')
if not fields[1] or fields[1] ~= player then
  return {0}
end
if fields[4] == 'matched' then
  return {2, fields[5], tonumber(fields[6]), fields[7], redis.call('EXISTS', prefix .. 'created:' .. fields[5]),
          tonumber(fields[8] or 0)}
end
if fields[4] == 'lapsed' then
  return {3, fields[5]}
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
    local claim_by = now + tonumber(ARGV[10])
    local mine = 0
    local tickets = {}
    for i = 1, need do
      local th = prefix .. 't:' .. group[i]
      redis.call('HSET', th, 'state', 'matched', 'match', ARGV[6], 'seat', order[i], 'players', names,
                 'claim_by', claim_by)
      forget(prefix, group[i])
      redis.call('ZADD', prefix .. 'p:' .. players[i], claim_by, group[i])  -- open until the match begins
      redis.call('PEXPIRE', th, tonumber(ARGV[7]))
      tickets[order[i] + 1] = group[i]
      if group[i] == t then
        mine = order[i]
      end
    end
    local m = prefix .. 'm:' .. ARGV[6]
    redis.call('HSET', m, 'game', game, 'tickets', table.concat(tickets, ','), 'claim_by', claim_by)
    redis.call('PEXPIRE', m, tonumber(ARGV[7]))
    redis.call('ZADD', prefix .. 'pending', claim_by, ARGV[6])
    return {2, ARGV[6], mine, names, 0, claim_by}
  end
end
return {1, deadline, tonumber(fields[9] or 0)}
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

SETTLE = """#!lua
-- A paired match's end in the queue, once known: 'started' (every seat collected: its tickets stop counting as
-- open) or 'dissolved' (not begun by its claim deadline: the tickets whose seats were collected go back to the
-- queue at its front, waiting again; the others lapse and their players may not queue for a while). Idempotent:
-- the first run removes the match's record, later ones find nothing to do. Returns {player, 'requeued'|'lapsed'}
-- pairs (nothing for 'started' or when settled already).
-- KEYS: waiting set. ARGV: prefix, now ms, match, outcome, collected seats (comma-separated), ttl ms,
-- no-show ms, front offset, lapsed ttl ms
local prefix, now, match, outcome = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4]
local m = prefix .. 'm:' .. match
local tickets = redis.call('HGET', m, 'tickets')
redis.call('ZREM', prefix .. 'pending', match)
if not tickets then
  return {}
end
local collected = {}
for s in string.gmatch(ARGV[5], '%d+') do
  collected[tonumber(s)] = true
end
local out = {}
local seat = 0
for t in string.gmatch(tickets, '[^,]+') do
  local th = prefix .. 't:' .. t
  local f = redis.call('HMGET', th, 'player', 'game', 'seats', 'queued', 'requeued', 'match', 'state')
  if f[1] then
    redis.call('ZREM', prefix .. 'p:' .. f[1], t)
  end
  if outcome ~= 'started' and f[1] and f[6] == match and f[7] == 'matched' then
    if collected[seat] then
      local deadline = now + tonumber(ARGV[6])
      redis.call('DEL', th)
      redis.call('HSET', th, 'player', f[1], 'game', f[2], 'seats', f[3], 'deadline', deadline, 'state', 'waiting',
                 'queued', f[4], 'requeued', tonumber(f[5] or 0) + 1)
      redis.call('ZADD', KEYS[1], deadline, t)
      redis.call('ZADD', prefix .. 'p:' .. f[1], deadline, t)
      for n in string.gmatch(f[3], '%d+') do
        redis.call('ZADD', prefix .. 'q:' .. f[2] .. ':' .. n, tonumber(f[4]) - tonumber(ARGV[8]), t)
      end
      out[#out + 1] = f[1]
      out[#out + 1] = 'requeued'
    else
      redis.call('DEL', th)
      redis.call('HSET', th, 'player', f[1], 'state', 'lapsed', 'match', match)
      redis.call('PEXPIRE', th, tonumber(ARGV[9]))
      local barred_until = now + tonumber(ARGV[7])
      if tonumber(ARGV[7]) > 0 then
        redis.call('SET', prefix .. 'ban:' .. f[1], barred_until, 'PX', tonumber(ARGV[7]))
      end
      out[#out + 1] = f[1]
      out[#out + 1] = 'lapsed'
    end
  end
  seat = seat + 1
end
redis.call('DEL', m)
return out
"""

# The match's side of a dissolution, on the match's own hash slot (so not in the same script as SETTLE): a match
# still open after its claim deadline is marked dissolved (the seat claim refuses every seat from then on, so the
# collected seats it answers never change) and put first in its partition's open set, which the archiver empties
# of the open matches it finds due (services.archive.expiry): its keys leave Redis at the archiver's next pass.
DISSOLVE = """#!lua
-- Returns {'gone'} (no such match: nobody created it), {'started'} (it began), {'early'} (its claim deadline has
-- not passed), or {'dissolved', collected seats (comma-separated)}.
-- KEYS: the gateway's hash of the match (gw). ARGV: match id, now ms
-- (The meta and the open set are named after the gw key, not in KEYS: EVALSHA checks KEYS for read *and* write
-- access, and the gateway may only read a meta and only add to an open set what is in it, #35.)
if string.sub(KEYS[1], -3) ~= ':gw' then
  return redis.error_reply('ERR the first key must be the gw key')
end
local meta = string.sub(KEYS[1], 1, -3) .. 'meta'
if redis.call('EXISTS', meta) == 0 then
  return {'gone'}
end
local f = redis.call('HMGET', meta, 'status', 'seats', 'arena_claim_by')
f[4] = redis.call('HGET', KEYS[1], 'arena_dissolved')
if f[1] ~= 'open' then
  return {'started'}
end
if not f[4] then
  if f[3] and tonumber(ARGV[2]) < tonumber(f[3]) then
    return {'early'}
  end
  redis.call('HSET', KEYS[1], 'arena_dissolved', ARGV[2])
  redis.call('ZADD', string.match(KEYS[1], '^(.*):match:[^:]*:gw$') .. ':matches:open', 'XX', 1, ARGV[1])
end
local seats = {}
for s = 0, tonumber(f[2]) - 1 do
  if redis.call('HEXISTS', meta, 'cred:' .. s) == 1 then
    seats[#seats + 1] = s
  end
end
return {'dissolved', table.concat(seats, ',')}
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
    claim_by_ms: int = 0  # every seat must be collected by then, else the match is dissolved


@dataclass(frozen=True)
class Waiting:
    deadline_ms: int
    requeued: int = 0  # how often a match it was paired into was dissolved (it went back to the queue's front)


@dataclass(frozen=True)
class Lapsed:
    match_id: str  # the match it was paired into, dissolved before its seat was collected


def parse_poll(reply: Sequence[object]) -> Matched | Waiting | Lapsed | None:
    """The POLL script's reply: None for an unknown ticket (or another player's)."""
    kind = int(reply[0])  # type: ignore[call-overload]
    if kind == 0:
        return None
    if kind == 1:
        return Waiting(int(reply[1]), int(_text(reply[2])) if len(reply) > 2 else 0)  # type: ignore[call-overload]
    if kind == 3:
        return Lapsed(_text(reply[1]))
    match_id, seat, players, created = (_text(x) for x in reply[1:5])
    claim_by = int(_text(reply[5])) if len(reply) > 5 else 0
    return Matched(match_id, int(seat), players.split(","), created == "1", claim_by)


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
