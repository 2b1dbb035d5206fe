#!lua
-- (#!lua, no flags: a script that may write; at maxmemory Redis refuses it whole before it runs.)
-- Write view records, each only when newer than the stored one (compare-and-set on the version), and
-- announce the new versions on the match's updates stream: one entry per version written, naming every view
-- written at it (k: the keys joined by commas, v: the version), and the same on the partition's live stream
-- (m: the match) for the gateways' readers. Returns how many were written.
-- KEYS: view hashes..., meta, updates stream, live stream
-- ARGV: updates maxlen, live maxlen, match id, then per view: key ('public' or seat), version, packed ViewRecord
local n = #KEYS - 3
if redis.call('EXISTS', KEYS[n + 1]) == 0 then
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
  redis.call('XADD', KEYS[n + 2], 'MAXLEN', '~', ARGV[1], '*', 'k', keys, 'v', version)
  redis.call('XADD', KEYS[n + 3], 'MAXLEN', '~', ARGV[2], '*', 'm', ARGV[3], 'k', keys, 'v', version)
end
return written
