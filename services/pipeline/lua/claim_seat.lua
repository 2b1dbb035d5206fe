#!lua
-- (#!lua, no flags: a script that may write; at maxmemory Redis refuses it whole before it runs.)
-- Give a free seat its credential hash; once every seat is taken the match is running.
-- Returns the meta hash (HGETALL), or nil when the match is unknown, the seat does not exist or is taken.
-- KEYS: meta, open set, running set, finished set
-- ARGV: seat, credential hash
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
  redis.call('HSET', KEYS[1], 'status', 'running')
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZREM', KEYS[4], id)
  redis.call('ZADD', KEYS[3], redis.call('HGET', KEYS[1], 'created'), id)
end
return redis.call('HGETALL', KEYS[1])
