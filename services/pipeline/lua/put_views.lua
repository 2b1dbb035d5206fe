#!lua
-- (#!lua, no flags: a script that may write; at maxmemory Redis refuses it whole before it runs.)
-- Write view records, each only when newer than the stored one (compare-and-set on the version), and
-- announce the new versions on the match's updates stream: one entry per version written, naming every view
-- written at it (k: the keys joined by commas, v: the version). Returns how many were written.
-- KEYS: view hashes..., meta, updates stream
-- ARGV: updates maxlen, then per view: key ('public' or seat), version, packed ViewRecord
local n = #KEYS - 2
if redis.call('EXISTS', KEYS[n + 1]) == 0 then
  return 0
end
local written, versions, keys_at = 0, {}, {}
for i = 1, n do
  local key, version, data = ARGV[3 * i - 1], tonumber(ARGV[3 * i]), ARGV[3 * i + 1]
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
  redis.call('XADD', KEYS[n + 2], 'MAXLEN', '~', ARGV[1], '*', 'k', table.concat(keys_at[version], ','), 'v', version)
end
return written
