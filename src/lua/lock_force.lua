--!flags allow-oom
-- Releases the lock whoever holds it, and wakes the next waiter.
-- KEYS: lock, waiters, queue, wake
-- ARGV: heartbeat ms, private wake-up key prefix
-- Returns 1 if a lock was held (and is gone now), 0 if it was free (or only
-- reserved for the fair queue's head, which keeps its turn).
--!include _lock_common.lua
local v = redis.call('GET', KEYS[1])
if not v or v == RESERVED then return 0 end
if redis.call('EXISTS', KEYS[2]) == 0 then
  redis.call('DEL', KEYS[1])
else
  free(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[2], tonumber(ARGV[1]), math.floor(now_us() / 1000))
end
return 1
