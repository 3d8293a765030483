-- attempt() on one sliding_window limiter. The same rules as
-- _rl_common.lua (used by attemptAll and peek), written out straight for the
-- hot path: a generic script costs Redis about twice the CPU. The cargo tests
-- hold both to the Rust model. Arguments and reply as in _rl_common.lua, N = 1.
local key = KEYS[1]
local limit, W, cost = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local t = redis.call('TIME')
local real = tonumber(t[1]) * 1000000 + tonumber(t[2])
local now, count, last = real, 0, nil
local skip = 0 -- stale entries left at the head of the list
local lastv = redis.call('LINDEX', key, -1)
if lastv then
  last = tonumber(lastv)
  if last > now then now = last end
  local len = redis.call('LLEN', key)
  local cut = now - W
  local stale = 0
  if last <= cut then
    stale = len
  else
    local head = redis.call('LRANGE', key, 0, 15)
    while stale < #head and tonumber(head[stale + 1]) <= cut do
      stale = stale + 1
    end
    if stale == #head then
      local lo, hi = #head, len - 1
      while lo < hi do
        local mid = math.floor((lo + hi) / 2)
        if tonumber(redis.call('LINDEX', key, mid)) <= cut then lo = mid + 1 else hi = mid end
      end
      stale = lo
    end
  end
  -- Entries that left the window are not counted; they are trimmed once 8
  -- have gathered (an LTRIM every 8th call at a steady rate, not every call),
  -- before the head read above would need a binary search to find them.
  if stale >= len then
    redis.call('DEL', key)
  elseif stale >= 8 then
    redis.call('LTRIM', key, stale, -1)
  else
    skip = stale
  end
  count = len - stale
end
local shift = now - real
if count + cost <= limit then
  local v = string.format('%.0f', now)
  local left = cost
  while left > 0 do
    local n = math.min(left, 1000)
    local args = {}
    for j = 1, n do args[j] = v end
    redis.call('RPUSH', key, unpack(args))
    left = left - n
  end
  redis.call('PEXPIRE', key, math.floor((W + shift + 999) / 1000) + 2)
  local rest = limit - count - cost
  if rest < 0 then rest = 0 end
  return { 1, rest, 0, W + shift, 0 }
end
local rest = limit - count
if rest < 0 then rest = 0 end
local retry = tonumber(redis.call('LINDEX', key, skip + count + cost - limit - 1)) + W - now + shift
local block = 0
if count + 1 > limit then
  block = tonumber(redis.call('LINDEX', key, skip + count - limit)) + W - now + shift
end
local reset = 0
if count > 0 then reset = last + W - now + shift end
return { 0, rest, retry, reset, block }
