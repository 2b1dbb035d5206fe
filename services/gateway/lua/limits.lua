#!lua
-- (#!lua, no flags: a script that may write; at maxmemory Redis refuses it whole and the gateway limits locally.)
-- One flush of one gateway's limits (services/gateway/shared_limits.py); every key is in the {limits} hash slot.
-- Grants are decided here, atomically, so no two gateways are ever given the same request or slot.
-- KEYS[1]: the registry, a sorted set gateway id -> when its counts expire (ms, Redis time);
-- KEYS[2]: this gateway's counts, a hash field -> what it holds plus what it reserved (expires with it);
-- KEYS[3..]: token buckets, hashes {l: level, t: ms of the level} (no key: a full bucket).
-- ARGV[1]: a gateway's counts hash name without its id; ARGV[2]: this gateway's id; ARGV[3]: time to live of its
-- counts (ms); ARGV[4]: C, the number of counts; then C quadruples (field, held and reserved here now, slots
-- needed now, limit); then per bucket of KEYS[3..] a quintuple (unused tokens given back, tokens needed now,
-- tokens wanted ahead, rate per second, burst). What is needed now is given while there is room; what is wanted
-- ahead, at most a 1/n share of what is left for n live gateways.
-- Returns {now ms, live gateways, 1 if this gateway's hash existed, {C: slots reserved}, {C: room before them},
-- {buckets: tokens given}, {buckets: level left, as text}}.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZADD', KEYS[1], now + ttl, ARGV[2])
local existed = redis.call('EXISTS', KEYS[2])
local live = redis.call('ZRANGE', KEYS[1], 0, -1)
local n = #live

local c = tonumber(ARGV[4])
local fields = {}
local others = {}
for i = 1, c do
  fields[i] = ARGV[1 + 4 * i]
  others[i] = 0
end
local chunk = 500
for _, id in ipairs(live) do
  if id ~= ARGV[2] then
    for first = 1, c, chunk do
      local last = math.min(c, first + chunk - 1)
      local counts = redis.call('HMGET', ARGV[1] .. id, unpack(fields, first, last))
      for i = first, last do
        others[i] = others[i] + (tonumber(counts[i - first + 1]) or 0)
      end
    end
  end
end
local reserved, rooms = {}, {}
for i = 1, c do
  local at = 1 + 4 * i
  local held, need, limit = tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2]), tonumber(ARGV[at + 3])
  local room = limit - others[i] - held
  local more = math.max(0, math.min(need, room))
  if held + more > 0 then
    redis.call('HSET', KEYS[2], fields[i], held + more)
  else
    redis.call('HDEL', KEYS[2], fields[i])
  end
  reserved[i], rooms[i] = more, room
end
redis.call('PEXPIRE', KEYS[2], ttl)

local given, levels = {}, {}
local base = 4 + 4 * c
for i = 3, #KEYS do
  local at = base + 5 * (i - 3)
  local back, need, ahead = tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2]), tonumber(ARGV[at + 3])
  local rate, burst = tonumber(ARGV[at + 4]), tonumber(ARGV[at + 5])
  local h = redis.call('HMGET', KEYS[i], 'l', 't')
  local level, stamp = tonumber(h[1]) or burst, tonumber(h[2]) or now
  level = math.min(burst, level + math.max(0, now - stamp) * rate / 1000 + back)
  local whole = math.floor(level)
  local extra = math.max(0, math.min(ahead, math.floor((whole - need) / n)))
  local take = math.max(0, math.min(whole, need + extra))
  level = level - take
  if level >= burst then
    redis.call('DEL', KEYS[i])
  else
    redis.call('HSET', KEYS[i], 'l', tostring(level), 't', now)
    redis.call('PEXPIRE', KEYS[i], math.ceil((burst - level) / rate * 1000) + 1000)
  end
  given[#given + 1], levels[#levels + 1] = take, tostring(level)
end
return {now, n, existed, reserved, rooms, given, levels}
