#!lua
-- (#!lua, no flags: a script that may write; at maxmemory Redis refuses it whole before it runs.)
-- Create a match atomically: its meta, its set-up events (versions 1..k) in the log and the partition
-- feed, and its entry in the status set. Returns 0 when the match id is taken.
-- The seed goes to the secret key (the meta key with 'secret' for 'meta': same partition, same hash slot),
-- which only workers (and admin tools) may read. It is not among KEYS on purpose: Redis checks every key
-- named in EVALSHA's KEYS for read *and* write access, and the gateway, which runs this script, may only
-- write the seed, once (SETNX; infra/redis/users.acl).
-- KEYS: meta, log, feed, status set
-- ARGV: feed maxlen, match id, created (ms), seed, 2n, n meta field/value pairs, then per event: its log entry
--       and its packed envelope for the feed.
if string.sub(KEYS[1], -5) ~= ':meta' then
  return redis.error_reply('ERR the first key must be the meta key')
end
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
if redis.call('SETNX', string.sub(KEYS[1], 1, -5) .. 'secret', ARGV[4]) == 0 then
  return 0
end
local nfields = tonumber(ARGV[5])
redis.call('HSET', KEYS[1], unpack(ARGV, 6, 5 + nfields))
local version = 0
for i = 6 + nfields, #ARGV, 2 do
  version = version + 1
  redis.call('XADD', KEYS[2], version .. '-0', 'e', ARGV[i])
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[1], '*', 'e', ARGV[i + 1])
end
redis.call('HSET', KEYS[1], 'version', version)
redis.call('ZADD', KEYS[4], ARGV[3], ARGV[2])
return 1
