#!lua
-- A worker's lease on one partition (redis_streams.RedisBus.leases, services/pipeline/worker.py: _share).
-- KEYS[1] = {p}:lease; ARGV[1] = the consumer; ARGV[2] = time to live (ms); ARGV[3] = "1" take or renew, "0" give up.
-- Returns 1 when the consumer holds the lease afterwards, else 0. Only the holder renews or gives it up.
local holder = redis.call('GET', KEYS[1])
if ARGV[3] == '1' then
  if holder == ARGV[1] then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return 1
  end
  if not holder then
    redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
    return 1
  end
  return 0
end
if holder == ARGV[1] then
  redis.call('DEL', KEYS[1])
end
return 0
