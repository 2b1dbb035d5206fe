#!lua
-- (#!lua, no flags: a script that may write; at maxmemory Redis refuses it whole and the gateway limits locally.)
-- One flush of one gateway's limits (services/gateway/shared_limits.py); every key is in the {limits} hash slot.
-- Grants are decided here, atomically, so no two gateways are ever given the same request or slot.
-- KEYS[1]: the registry, a sorted set gateway id -> when its counts expire (ms, Redis time);
-- KEYS[2]: this gateway's counts, a hash field -> what it holds plus what it reserved (expires with it);
-- KEYS[3..]: token buckets, hashes {l: free tokens, t: ms of l, o:<id>: leased to a gateway} (no key: a full bucket).
-- ARGV[1]: a gateway's counts hash name without its id; ARGV[2]: this gateway's id; ARGV[3]: time to live of its
-- counts (ms); ARGV[4]: C, the number of counts; then C quadruples (field, held and reserved here now, slots
-- needed now, limit); then per bucket of KEYS[3..] six values (unused tokens given back, tokens used since the
-- last report, tokens needed now, tokens wanted ahead, rate per second, burst). What is needed now is given while
-- there is room; what is wanted ahead, at most a 1/n share of what is left for n live gateways.
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

-- A bucket holds `l`, the free tokens at time `t`, and per gateway `o:<id>`, the tokens leased to it and not yet
-- reported used or given back. Free and leased tokens together never refill past the burst, so a lease held at a
-- gateway is never also in the bucket; the leases of a gateway no longer live are left out (it took them along).
local given, levels = {}, {}
local base = 4 + 4 * c
local owed = {'l', 't'}
for _, id in ipairs(live) do
  owed[#owed + 1] = 'o:' .. id
end
local mine = 'o:' .. ARGV[2]
for i = 3, #KEYS do
  local at = base + 6 * (i - 3)
  local back, used = tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2])
  local need, ahead = tonumber(ARGV[at + 3]), tonumber(ARGV[at + 4])
  local rate, burst = tonumber(ARGV[at + 5]), tonumber(ARGV[at + 6])
  local h = redis.call('HMGET', KEYS[i], unpack(owed))
  local free, stamp = tonumber(h[1]) or burst, tonumber(h[2]) or now
  local leased, own = 0, 0
  for j, id in ipairs(live) do
    local o = tonumber(h[2 + j]) or 0
    if id == ARGV[2] then
      own = o
    else
      leased = leased + o
    end
  end
  own = math.max(0, own - used - back)
  leased = leased + own
  free = math.max(free, math.min(burst - leased, free + math.max(0, now - stamp) * rate / 1000)) + back
  local whole = math.floor(free)
  local extra = math.max(0, math.min(ahead, math.floor((whole - need) / n)))
  local take = math.max(0, math.min(whole, need + extra))
  free, own, leased = free - take, own + take, leased + take
  if free >= burst and leased == 0 then
    redis.call('DEL', KEYS[i])  -- a full bucket is no key
  else
    if own > 0 then
      redis.call('HSET', KEYS[i], 'l', tostring(free), 't', now, mine, own)
    else
      redis.call('HSET', KEYS[i], 'l', tostring(free), 't', now)
      redis.call('HDEL', KEYS[i], mine)
    end
    redis.call('PEXPIRE', KEYS[i], math.ceil(math.max(0, burst - leased - free) / rate * 1000) + ttl + 1000)
  end
  given[#given + 1], levels[#levels + 1] = take, tostring(free)
end
return {now, n, existed, reserved, rooms, given, levels}
