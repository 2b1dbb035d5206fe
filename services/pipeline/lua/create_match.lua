-- Create a match atomically: its meta, its set-up events (versions 1..k) in the log and the partition
-- feed, and its entry in the status set. Returns 0 when the match id is taken.
-- KEYS: meta, log, feed, status set
-- ARGV: feed maxlen, match id, created (ms), 2n, n meta field/value pairs, packed events...
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
local nfields = tonumber(ARGV[4])
redis.call('HSET', KEYS[1], unpack(ARGV, 5, 4 + nfields))
local version = 0
for i = 5 + nfields, #ARGV do
  version = version + 1
  redis.call('XADD', KEYS[2], version .. '-0', 'e', ARGV[i])
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[1], '*', 'e', ARGV[i])
end
redis.call('HSET', KEYS[1], 'version', version)
redis.call('ZADD', KEYS[4], ARGV[3], ARGV[2])
return 1
