#!lua
-- (#!lua, no flags: a script that may write; at maxmemory Redis refuses it whole before it runs.)
-- The atomic append. In one step: if the command id was seen, return its earlier result; if the match is
-- not at the expected version (and there are events), report a conflict; else add the events to the match
-- log (entry id = version) and the partition feed, record the result (seen hash and results stream), and
-- mark the match finished when asked.
-- Returns {'duplicate', version, earlier result} | {'conflict', version} | {'appended', version}.
-- KEYS: meta, log, seen, results, feed, running set, finished set, sent (the gateway's published ids)
-- ARGV: command id, expected version, packed result, finished (1/0), feed maxlen, results maxlen,
--       results ttl (s), packed events...
local current = redis.call('HGET', KEYS[1], 'version')
if not current then
  return redis.error_reply('ERR unknown match')
end
local version = tonumber(current)
local earlier = redis.call('HGET', KEYS[3], ARGV[1])
if earlier then
  return {'duplicate', version, earlier}
end
local events = #ARGV - 7
if events > 0 and version ~= tonumber(ARGV[2]) then
  return {'conflict', version}
end
for i = 8, #ARGV do
  version = version + 1
  redis.call('XADD', KEYS[2], version .. '-0', 'e', ARGV[i])
  redis.call('XADD', KEYS[5], 'MAXLEN', '~', ARGV[5], '*', 'e', ARGV[i])
end
if events > 0 then
  redis.call('HSET', KEYS[1], 'version', version)
end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[6], '*', 'r', ARGV[3])
if ARGV[4] == '1' then
  local id = redis.call('HGET', KEYS[1], 'match_id')
  redis.call('HSET', KEYS[1], 'status', 'finished')
  redis.call('ZREM', KEYS[6], id)
  redis.call('ZADD', KEYS[7], redis.call('HGET', KEYS[1], 'created'), id)
end
if redis.call('HGET', KEYS[1], 'status') == 'finished' then
  redis.call('EXPIRE', KEYS[4], ARGV[7])
  redis.call('EXPIRE', KEYS[8], ARGV[7])
end
return {'appended', version}
