-- Wakes the callers blocked in remember() for this key: each counted itself
-- in `waiters` before it blocked, and gets one token on the wake-up list
-- (which expires after ttl_ms: a caller that gave up leaves its token behind,
-- and a stale token only makes some later waiter look again).
local function wake(waiters, list, token, ttl_ms)
  local n = tonumber(redis.call('GET', waiters) or '0') or 0
  if n <= 0 then return end
  redis.call('DEL', waiters)
  -- RPUSH in slices: unpack() is limited by Lua's stack
  local slice = {}
  for i = 1, math.min(n, 500) do slice[i] = token end
  while n > 0 do
    if n < #slice then
      for i = n + 1, #slice do slice[i] = nil end
    end
    redis.call('RPUSH', list, unpack(slice))
    n = n - #slice
  end
  redis.call('PEXPIRE', list, ttl_ms)
end
