#!lua
-- (#!lua, no flags: a script that may write; at maxmemory Redis refuses it whole before it runs.)
-- Give a free seat its credential hash; once every seat is taken the match is running. With ARGV[3], the claim
-- that starts the match also announces every view key of it on its updates stream at the current version, as
-- put_views.lua announces written views: no event is written, but what the gateway serves of those views
-- changes (while a match is open its records say nobody acts), so whoever waits on them looks again.
-- The same announcement goes on the partition's live stream (with the match id), which the gateways read; it
-- is trimmed by the appends and view writes that share it. Both streams are named after the meta key (same
-- partition, same hash slot), not taken in KEYS: Redis checks every key in EVALSHA's KEYS for read *and* write
-- access, and the gateway may only add to them.
-- Returns the meta hash (HGETALL), or nil when the match is unknown, the seat does not exist or is taken.
-- KEYS: meta, open set, running set, finished set
-- ARGV: seat, credential hash[, updates maxlen]
if string.sub(KEYS[1], -5) ~= ':meta' then
  return redis.error_reply('ERR the first key must be the meta key')
end
if redis.call('EXISTS', KEYS[1]) == 0 then
  return false
end
local seat = tonumber(ARGV[1])
local seats = tonumber(redis.call('HGET', KEYS[1], 'seats'))
if seat == nil or seat < 0 or seat >= seats then
  return false
end
if redis.call('HSETNX', KEYS[1], 'cred:' .. seat, ARGV[2]) == 0 then
  return false
end
if redis.call('HINCRBY', KEYS[1], 'joined', 1) == seats then
  local id = redis.call('HGET', KEYS[1], 'match_id')
  local now = redis.call('TIME')  -- the match begins: its idle time (AIRSHIP_IDLE_MATCH_S) counts from now
  redis.call('HSET', KEYS[1], 'status', 'running', 'moved',
             now[1] .. string.format('%03d', math.floor(tonumber(now[2]) / 1000)))
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZREM', KEYS[4], id)
  redis.call('ZADD', KEYS[3], redis.call('HGET', KEYS[1], 'created'), id)
  if ARGV[3] then
    local views = {'public'}
    for s = 0, seats - 1 do
      views[#views + 1] = tostring(s)
    end
    local updates = string.sub(KEYS[1], 1, -5) .. 'updates'
    local live = string.match(KEYS[1], '^(.*):match:[^:]*:meta$') .. ':live'
    local version = redis.call('HGET', KEYS[1], 'version') or '0'
    local keys = table.concat(views, ',')
    redis.call('XADD', updates, 'MAXLEN', '~', ARGV[3], '*', 'k', keys, 'v', version)
    redis.call('XADD', live, '*', 'm', id, 'k', keys, 'v', version)
  end
end
return redis.call('HGETALL', KEYS[1])
