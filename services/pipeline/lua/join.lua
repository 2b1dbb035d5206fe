#!lua
-- (#!lua, no flags: a script that may write; at maxmemory Redis refuses it whole before it runs.)
-- match.join, decided by a worker (#35; and the embedded clients' claim_seat): give the seat its credential hash, insert-only (a taken seat stays taken), link it to the registered player named, and start the
-- match when its last seat is taken. A seat already holding this very hash is answered as joined (a join delivered
-- again after a worker died). Checks, in order: the gateway's deadline has not passed (its client has been answered
-- otherwise); the match is open; for a player, the arena match was not dissolved nor its claim deadline passed,
-- and the player holds no seat of it yet; the seat exists, is not reserved for someone else and is free. (The
-- caller names the seat: a seat token carries its seat, so it is made for one.)
-- The match starting announces every view key of it on its updates stream and on the partition's live stream (as
-- put_views.lua announces written views): no event is written, but what the gateways serve of those views changes
-- (while a match is open its records say nobody acts), so whoever waits on them looks again. The streams and the
-- gateway's hash (`gw`: arena_dissolved) are named after the meta key (same partition, same hash slot).
-- A clocked match (#29) is started with its ClockStarted event: appended to the log and the feed at the version
-- given (only if the log is still at the one before it), and its first deadline put in the partition's clocks set.
-- KEYS: meta, open set, running set, finished set, the partition's seat-players hash
--       [, log, feed, clocks: a clocked match]
-- ARGV: seat, credential hash, updates maxlen, player ('' for none),
--       deadline (ms since the epoch; 0 for none)
--       [, ClockStarted's version, first deadline (ms), feed maxlen, log entry, feed entry: a clocked match]
-- Returns {'joined', seat} | {'unknown'} | {'expired'} | {'started'} | {'lapsed'} | {'twice'} | {'no_seat', seat}
--         | {'reserved', seat} | {'taken', seat}
if string.sub(KEYS[1], -5) ~= ':meta' then
  return redis.error_reply('ERR the first key must be the meta key')
end
if redis.call('EXISTS', KEYS[1]) == 0 then
  return {'unknown'}
end
local meta, hash, player = KEYS[1], ARGV[2], ARGV[4]
local f = redis.call('HMGET', meta, 'seats', 'status', 'match_id', 'arena_claim_by', 'created')
local seats, id = tonumber(f[1]), f[3]
for s = 0, seats - 1 do
  if redis.call('HGET', meta, 'cred:' .. s) == hash then
    return {'joined', s}
  end
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if tonumber(ARGV[5]) > 0 and now > tonumber(ARGV[5]) then
  return {'expired'}
end
if f[2] ~= 'open' then
  return {'started'}
end
local base = string.sub(meta, 1, -5)
if player ~= '' then
  if redis.call('HEXISTS', base .. 'gw', 'arena_dissolved') == 1 or (f[4] and now > tonumber(f[4])) then
    return {'lapsed'}
  end
  if redis.call('HEXISTS', KEYS[5], id .. '.p.' .. player) == 1 then
    return {'twice'}
  end
end
local seat = tonumber(ARGV[1])
if seat == nil or seat < 0 or seat >= seats then
  return {'no_seat', ARGV[1]}
end
local reserved = redis.call('HGET', meta, 'reserve:' .. seat)
if reserved and reserved ~= player then
  return {'reserved', seat}
end
if redis.call('HSETNX', meta, 'cred:' .. seat, hash) == 0 then
  return {'taken', seat}
end
if player ~= '' then
  redis.call('HSET', KEYS[5], id .. '.' .. seat, player, id .. '.p.' .. player, seat, id .. '.created', f[5])
end
if redis.call('HINCRBY', meta, 'joined', 1) == seats then
  -- the match begins: its idle time (AIRSHIP_IDLE_MATCH_S) counts from now
  redis.call('HSET', meta, 'status', 'running', 'moved', tostring(now))
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZREM', KEYS[4], id)
  redis.call('ZADD', KEYS[3], f[5], id)
  if KEYS[8] and tonumber(redis.call('HGET', meta, 'version') or '0') + 1 == tonumber(ARGV[6]) then
    redis.call('XADD', KEYS[6], ARGV[6] .. '-0', 'e', ARGV[9])
    redis.call('XADD', KEYS[7], 'MAXLEN', '~', ARGV[8], '*', 'e', ARGV[10])
    redis.call('HSET', meta, 'version', ARGV[6])
    if tonumber(ARGV[7]) > 0 then
      redis.call('ZADD', KEYS[8], ARGV[7], id)
    end
  end
  local views = {'public'}
  for s = 0, seats - 1 do
    views[#views + 1] = tostring(s)
  end
  local keys = table.concat(views, ',')
  local version = redis.call('HGET', meta, 'version') or '0'
  redis.call('XADD', base .. 'updates', 'MAXLEN', '~', ARGV[3], '*', 'k', keys, 'v', version)
  redis.call('XADD', string.match(meta, '^(.*):match:[^:]*:meta$') .. ':live', '*', 'm', id, 'k', keys, 'v', version)
end
return {'joined', seat}
