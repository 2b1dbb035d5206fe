#!lua
-- (#!lua, no flags: a script that may write; at maxmemory Redis refuses it whole before it runs.)
-- Flag free seats of an open match for the service's bots: field bot:<seat> = strength in the match's gateway hash
-- (gw), and the match in its partition's bots-wanted set. All or nothing: every seat named must exist, be free and
-- unflagged. The meta is named after the gw key, not in KEYS: EVALSHA checks KEYS for read *and* write access, and
-- the gateway may only read a meta (#35).
-- KEYS: gw, bots-wanted set
-- ARGV: strength, now (ms), seat...
-- Returns {0} when done, else {code, seat}: -1 unknown match, -2 not open, -3 no such seat, -4 taken,
-- -5 already flagged, -6 reserved for a registered player (a rated seat: only that player may join it).
local meta = string.sub(KEYS[1], 1, -3) .. 'meta'
if redis.call('EXISTS', meta) == 0 then
  return {-1, -1}
end
if redis.call('HGET', meta, 'status') ~= 'open' then
  return {-2, -1}
end
local seats = tonumber(redis.call('HGET', meta, 'seats'))
for i = 3, #ARGV do
  local seat = tonumber(ARGV[i])
  if seat == nil or seat < 0 or seat >= seats then
    return {-3, i - 3}
  end
  if redis.call('HEXISTS', meta, 'cred:' .. seat) == 1 then
    return {-4, seat}
  end
  if redis.call('HEXISTS', KEYS[1], 'bot:' .. seat) == 1 then
    return {-5, seat}
  end
  if redis.call('HEXISTS', meta, 'reserve:' .. seat) == 1 then
    return {-6, seat}
  end
end
for i = 3, #ARGV do
  redis.call('HSET', KEYS[1], 'bot:' .. ARGV[i], ARGV[1])
end
redis.call('ZADD', KEYS[2], ARGV[2], redis.call('HGET', meta, 'match_id'))
return {0, -1}
