-- Create a match atomically: its meta, its set-up events (versions 1..k) in the log and the partition
-- feed, and its entry in the status set. Returns 0 when the match id is taken.
-- The seed goes to the secret key, which only workers (and admin tools) may read.
-- KEYS: meta, log, feed, status set, secret
-- ARGV: feed maxlen, match id, created (ms), seed, 2n, n meta field/value pairs, packed events...
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
local nfields = tonumber(ARGV[5])
redis.call('HSET', KEYS[1], unpack(ARGV, 6, 5 + nfields))
redis.call('SET', KEYS[5], ARGV[4])
local version = 0
for i = 6 + nfields, #ARGV do
  version = version + 1
  redis.call('XADD', KEYS[2], version .. '-0', 'e', ARGV[i])
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[1], '*', 'e', ARGV[i])
end
redis.call('HSET', KEYS[1], 'version', version)
redis.call('ZADD', KEYS[4], ARGV[3], ARGV[2])
return 1
