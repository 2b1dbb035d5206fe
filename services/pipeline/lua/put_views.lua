#!lua
-- (#!lua, no flags: a script that may write; at maxmemory Redis refuses it whole before it runs.)
-- Write view records, each only when newer than the stored one (compare-and-set on the version), and
-- announce each new version on the match's updates stream. Returns how many were written.
-- KEYS: view hashes..., meta, updates stream
-- ARGV: updates maxlen, then per view: key ('public' or seat), version, packed ViewRecord
local n = #KEYS - 2
if redis.call('EXISTS', KEYS[n + 1]) == 0 then
  return 0
end
local written = 0
for i = 1, n do
  local key, version, data = ARGV[3 * i - 1], tonumber(ARGV[3 * i]), ARGV[3 * i + 1]
  local current = redis.call('HGET', KEYS[i], 'v')
  if not current or tonumber(current) < version then
    redis.call('HSET', KEYS[i], 'v', version, 'd', data)
    redis.call('XADD', KEYS[n + 2], 'MAXLEN', '~', ARGV[1], '*', 'k', key, 'v', version)
    written = written + 1
  end
end
return written
