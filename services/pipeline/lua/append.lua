#!lua
-- (#!lua, no flags: a script that may write; at maxmemory Redis refuses it whole before it runs.)
-- The atomic append of a chain of commands of one match, in order. For each command: if its id was seen,
-- answer its earlier result; if the match is not at the command's expected version (checked when the
-- command has events, or for every command when it is strict), report a conflict; else add its events to
-- the match log (entry id = version) and the partition feed, record its result (seen hash and results
-- stream), and mark the match finished when asked. The chain stops at the first command not appended:
-- those after it were decided on a state that now is not the match's, so they are not tried.
-- Returns one reply per command tried: {'duplicate', version, earlier result} | {'conflict', version} |
-- {'appended', version}.
-- KEYS: meta, log, seen, results, feed, running set, finished set, sent (the gateway's published ids)
-- ARGV: feed maxlen, results maxlen, results ttl (s), then per command: command id, expected version,
--       packed result (without its id: the seen hash's field and the results entry's `c` hold it), finished (1/0), strict (1/0), event count n, then per event: its log entry and its
--       packed envelope for the feed.
local current = redis.call('HGET', KEYS[1], 'version')
if not current then
  return redis.error_reply('ERR unknown match')
end
local version = tonumber(current)
local replies = {}
local function done()
  if redis.call('HGET', KEYS[1], 'status') == 'finished' then
    redis.call('EXPIRE', KEYS[4], ARGV[3])
    redis.call('EXPIRE', KEYS[8], ARGV[3])
  end
  return replies
end
local i = 4
while i <= #ARGV do
  local id, expected, result, finished = ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2], ARGV[i + 3]
  local strict, events = ARGV[i + 4], tonumber(ARGV[i + 5])
  local first, last = i + 6, i + 5 + 2 * events
  i = last + 1
  local earlier = redis.call('HGET', KEYS[3], id)
  if earlier then
    replies[#replies + 1] = {'duplicate', version, earlier}
    return done()
  end
  if (events > 0 or strict == '1') and version ~= expected then
    replies[#replies + 1] = {'conflict', version}
    return done()
  end
  for j = first, last, 2 do
    version = version + 1
    redis.call('XADD', KEYS[2], version .. '-0', 'e', ARGV[j])
    redis.call('XADD', KEYS[5], 'MAXLEN', '~', ARGV[1], '*', 'e', ARGV[j + 1])
  end
  if events > 0 then
    redis.call('HSET', KEYS[1], 'version', version)
  end
  redis.call('HSET', KEYS[3], id, result)
  redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[2], '*', 'c', id, 'r', result)
  if finished == '1' then
    local match = redis.call('HGET', KEYS[1], 'match_id')
    redis.call('HSET', KEYS[1], 'status', 'finished')
    redis.call('ZREM', KEYS[6], match)
    redis.call('ZADD', KEYS[7], redis.call('HGET', KEYS[1], 'created'), match)
  end
  replies[#replies + 1] = {'appended', version}
end
return done()
