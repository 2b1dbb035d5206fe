#!lua
-- (#!lua, no flags: a script that may write; at maxmemory Redis refuses it whole before it runs.)
-- Write view records, each only when newer than the stored one (compare-and-set on the version), and
-- announce the new versions on the match's updates stream: one entry per version written, naming every view
-- written at it (k: the keys joined by commas, v: the version), and the same on the partition's live stream
-- (m: the match) for the gateways' readers. Returns how many were written.
-- Nothing is written for a match whose meta is gone (archived meanwhile). The meta is named after the updates
-- stream (same partition, same hash slot), not taken in KEYS: Redis checks every key in EVALSHA's KEYS for read
-- *and* write access, and the projector may only read a meta (infra/redis/users.acl).
-- KEYS: view hashes..., updates stream, live stream
-- ARGV: updates maxlen, live maxlen, match id, then per view: key ('public' or seat), version, packed ViewRecord
local n = #KEYS - 2
if string.sub(KEYS[n + 1], -8) ~= ':updates' then
  return redis.error_reply('ERR the last keys must be the updates and live streams')
end
if redis.call('EXISTS', string.sub(KEYS[n + 1], 1, -8) .. 'meta') == 0 then
  return 0
end
local written, versions, keys_at = 0, {}, {}
for i = 1, n do
  local key, version, data = ARGV[3 * i + 1], tonumber(ARGV[3 * i + 2]), ARGV[3 * i + 3]
  local current = redis.call('HGET', KEYS[i], 'v')
  if not current or tonumber(current) < version then
    redis.call('HSET', KEYS[i], 'v', version, 'd', data)
    if not keys_at[version] then
      keys_at[version] = {}
      versions[#versions + 1] = version
    end
    table.insert(keys_at[version], key)
    written = written + 1
  end
end
for _, version in ipairs(versions) do
  local keys = table.concat(keys_at[version], ',')
  redis.call('XADD', KEYS[n + 1], 'MAXLEN', '~', ARGV[1], '*', 'k', keys, 'v', version)
  redis.call('XADD', KEYS[n + 2], 'MAXLEN', '~', ARGV[2], '*', 'm', ARGV[3], 'k', keys, 'v', version)
end
return written
