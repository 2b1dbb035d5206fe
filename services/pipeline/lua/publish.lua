#!lua
-- (#!lua, no flags: a script that may write; at maxmemory Redis refuses it whole before it runs.)
-- The gateway publishes one client command, atomically: a key the seat already used for another command is
-- refused (its first command's digest is kept in the sent hash); a command already decided answers its recorded
-- result and publishes nothing; else the command is marked sent (with its digest) and added to the partition's
-- command stream. The sent hash, the seen hash and the stream are named after the match's gateway hash (same
-- partition, same hash slot), not taken in KEYS: Redis checks every key in EVALSHA's KEYS for read *and* write
-- access, and the gateway may only read the seen hash and only add to the stream; the gw hash is the one key of a
-- match it may write whole (#35), which also routes the script to the match's slot on a cluster.
-- Returns {'reused'} | {'earlier', packed result} | {'sent'}.
-- KEYS: the match's gateway hash (gw)
-- ARGV: command id, digest of the command (type, body, expected version), packed command envelope
if string.sub(KEYS[1], -3) ~= ':gw' then
  return redis.error_reply('ERR the first key must be the gw key')
end
local base = string.sub(KEYS[1], 1, -3)
local sent, seen = base .. 'sent', base .. 'seen'
local before = redis.call('HGET', sent, ARGV[1])
if before and before ~= ARGV[2] and before ~= '1' then  -- '1': sent before digests were kept
  return {'reused'}
end
local earlier = redis.call('HGET', seen, ARGV[1])
if earlier then
  return {'earlier', earlier}
end
redis.call('HSET', sent, ARGV[1], ARGV[2])
redis.call('XADD', string.match(KEYS[1], '^(.*):match:[^:]*:gw$') .. ':commands', '*', 'e', ARGV[3])
return {'sent'}
