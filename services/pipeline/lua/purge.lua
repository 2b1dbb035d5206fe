#!lua flags=allow-oom
-- (allow-oom: it only removes, so it runs at maxmemory too, when removing is what frees memory.)
-- match.purge, decided by a worker: remove a match's keys and its set entries, atomically, only if the match is
-- finished at the version the archiver archived (status 'finished'), or still open and created more than the
-- worker's open TTL ago (status 'open'; a TTL of 0 keeps open matches). Anything else deletes nothing.
-- Returns 'deleted' | 'gone' (no meta and no log: only stale set entries were left, removed) | 'orphan' (a log
-- without its meta: left alone) | 'not_finished' | 'changed' (the version moved on) | 'started' (not open any
-- more: only its stale open-set entry is removed) | 'young' (open, not past the TTL) | 'kept' (TTL 0) | 'bad'.
-- KEYS: meta, log, finished set (the keys the worker may read and write; EVALSHA checks KEYS for both)
-- ARGV: match id, status ('finished' | 'open'), version, open TTL (ms), then by name (each call is checked
--       against the worker's ACL: UNLINK and ZREM only through its selectors): open set, the archiver's pending
--       set, and the match's other keys (secret, seen, sent, results, updates, views)
local id = ARGV[1]
local function unsets()
  redis.call('ZREM', KEYS[3], id)
  redis.call('ZREM', ARGV[5], id)
  redis.call('ZREM', ARGV[6], id)
end
local status = redis.call('HGET', KEYS[1], 'status')
if not status then
  if redis.call('EXISTS', KEYS[2]) == 1 then
    return 'orphan'
  end
  unsets()
  return 'gone'
end
if ARGV[2] == 'finished' then
  if status ~= 'finished' then
    return 'not_finished'
  end
  if (redis.call('HGET', KEYS[1], 'version') or '0') ~= ARGV[3] then
    return 'changed'
  end
elseif ARGV[2] == 'open' then
  if status ~= 'open' then
    redis.call('ZREM', ARGV[5], id)
    return 'started'
  end
  local ttl = tonumber(ARGV[4])
  if ttl <= 0 then
    return 'kept'
  end
  local created = redis.call('ZSCORE', ARGV[5], id) or redis.call('HGET', KEYS[1], 'created')
  local now = redis.call('TIME')
  if not created or tonumber(created) + ttl > tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) then
    return 'young'
  end
else
  return 'bad'
end
for i = 7, #ARGV do
  redis.call('UNLINK', ARGV[i])
end
redis.call('UNLINK', KEYS[2])
redis.call('UNLINK', KEYS[1])
unsets()
return 'deleted'
