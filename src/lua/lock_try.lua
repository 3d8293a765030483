-- One attempt to take the lock without waiting (the hot path: no include).
-- KEYS: lock, fence, queue; ARGV: token, ttl ms
-- Returns {1, fencing token} or {0, holder's PTTL in ms (-1: none, or queued fair waiters)}.
local lock, fence, me, ttl = KEYS[1], KEYS[2], ARGV[1], ARGV[2]
if redis.call('EXISTS', KEYS[3]) == 1 then
  -- Fair waiters are queued: only their head may take it (see lock_acquire.lua).
  if redis.call('GET', lock) ~= me then
    return {0, redis.call('PTTL', lock)}
  end
end
if not redis.call('SET', lock, me, 'NX', 'PX', ttl) then
  if redis.call('GET', lock) ~= me then
    return {0, redis.call('PTTL', lock)}
  end
  redis.call('PEXPIRE', lock, ttl)
end
-- Strictly increasing, even if the counter was lost (restart, expiry): never
-- below the server's clock in microseconds.
local t = redis.call('TIME')
local us = tonumber(t[1]) * 1000000 + tonumber(t[2])
local keep = math.max(86400000, 2 * tonumber(ttl))
local last = tonumber(redis.call('SET', fence, string.format('%.0f', us), 'PX', keep, 'GET') or '0') or 0
if last >= us then
  us = last + 1
  redis.call('SET', fence, string.format('%.0f', us), 'PX', keep)
end
return {1, us}
