#!lua
-- (#!lua, no flags: a script that may write; at maxmemory Redis refuses it whole before it runs.)
-- The atomic append of chains of commands, one chain per match, the matches in the order given (all of one
-- partition on Redis Cluster: their keys share its hash tag). For each command of a chain: if its id was seen,
-- answer its earlier result; if the match is not at the command's expected version (checked when the command
-- has events, or for every command when it is strict), report a conflict; else add its events to the match
-- log (entry id = version) and the partition feed, record its result (seen hash and results stream), announce
-- it on the partition's live stream (for the gateways' readers), and mark the match finished when asked. A chain stops at its first command not appended: those after it were
-- decided on a state that now is not the match's, so they are not tried; the other matches' chains go on.
-- A command with a deadline (a clocked match, #29) sets the match's entry in the partition's clocks sorted set (named
-- after the live key): its next deadline, or none (removed) once no seat is on the clock or the match finished.
-- Returns one reply per match: 'unknown' (no such match: nothing done for it), or one reply per command
-- tried: {'duplicate', version, earlier result} | {'conflict', version} | {'appended', version}.
-- KEYS: per match, 9 keys: meta, log, seen, results, feed, running set, finished set, sent (the gateway's
--       published ids), live
-- ARGV: feed maxlen, results maxlen, results ttl (s), live maxlen, rejections kept in seen beyond the version
--       (AIRSHIP_REJECTED_KEPT), then per match: how many ARGV entries its chain takes,
--       then per command: command id, expected version, packed result (without its id: the seen hash's field
--       and the results entry's `c` hold it), finished (1/0), strict (1/0), deadline (ms of the match's next
--       deadline; 0: none, remove its entry; -1: no clock, leave it), event count n, then per event: its log
--       entry and its packed envelope for the feed.
local function chain(k, i, last)
  local meta = redis.call('HMGET', KEYS[k + 1], 'version', 'status', 'match_id')
  if not meta[1] then
    return 'unknown'
  end
  local version = tonumber(meta[1])
  local start, over = version, meta[2] == 'finished'
  local replies = {}
  local function done()  -- the match's version once per chain; a finished match's results and ids expire
    if version ~= start then  -- and when it last moved (the archiver ends matches idle for AIRSHIP_IDLE_MATCH_S)
      local now = redis.call('TIME')
      redis.call('HSET', KEYS[k + 1], 'version', version, 'moved',
                 now[1] .. string.format('%03d', math.floor(tonumber(now[2]) / 1000)))
    end
    if over then
      redis.call('EXPIRE', KEYS[k + 4], ARGV[3])
      redis.call('EXPIRE', KEYS[k + 8], ARGV[3])
    end
    return replies
  end
  while i <= last do
    local id, expected, result, finished = ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2], ARGV[i + 3]
    local strict, deadline, events = ARGV[i + 4], tonumber(ARGV[i + 5]), tonumber(ARGV[i + 6])
    local first, final = i + 7, i + 6 + 2 * events
    i = final + 1
    local earlier = redis.call('HGET', KEYS[k + 3], id)
    if earlier then
      replies[#replies + 1] = {'duplicate', version, earlier}
      return done()
    end
    if (events > 0 or strict == '1') and version ~= expected then
      replies[#replies + 1] = {'conflict', version}
      return done()
    end
    for j = first, final, 2 do
      version = version + 1
      redis.call('XADD', KEYS[k + 2], version .. '-0', 'e', ARGV[j])
      redis.call('XADD', KEYS[k + 5], 'MAXLEN', '~', ARGV[1], '*', 'e', ARGV[j + 1])
    end
    -- The at-most-once record keeps every command that appended events; a command that changed nothing (a
    -- rejection) is kept only while the hash holds fewer than version + ARGV[5] entries, so floods of rejected
    -- commands cannot grow it without bound. One not kept is simply decided again if resent: it changed nothing.
    -- The gateway's sent hash keeps the command's digest as long as its result is kept (a key reused for another
    -- command is refused by publish.lua); one not kept leaves it too: the sent hash is as bounded as the seen one.
    if events > 0 or redis.call('HLEN', KEYS[k + 3]) < version + tonumber(ARGV[5]) then
      redis.call('HSET', KEYS[k + 3], id, result)
    else
      redis.call('HDEL', KEYS[k + 8], id)
    end
    redis.call('XADD', KEYS[k + 4], 'MAXLEN', '~', ARGV[2], '*', 'c', id, 'r', result)
    redis.call('XADD', KEYS[k + 9], 'MAXLEN', '~', ARGV[4], '*', 'm', meta[3], 'c', id, 'r', result)
    if events > 0 and deadline >= 0 then
      local clocks = string.sub(KEYS[k + 9], 1, -5) .. 'clocks'
      if deadline > 0 and finished ~= '1' then
        redis.call('ZADD', clocks, deadline, meta[3])
      else
        redis.call('ZREM', clocks, meta[3])
      end
    end
    if finished == '1' then
      redis.call('HSET', KEYS[k + 1], 'status', 'finished')
      over = true
      redis.call('ZREM', KEYS[k + 6], meta[3])
      redis.call('ZADD', KEYS[k + 7], redis.call('HGET', KEYS[k + 1], 'created'), meta[3])
    end
    replies[#replies + 1] = {'appended', version}
  end
  return done()
end

local out = {}
local a = 6
for m = 0, #KEYS / 9 - 1 do
  local n = tonumber(ARGV[a])
  out[m + 1] = chain(m * 9, a + 1, a + n)
  a = a + n + 1
end
return out
