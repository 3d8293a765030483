-- Releases the lock whoever holds it, and wakes the next waiter.
-- KEYS: lock, waiters, queue, wake
-- ARGV: heartbeat ms, private wake-up key prefix
-- Returns 1 if a lock was held (and is gone now), 0 if it was free.
if redis.call('DEL', KEYS[1]) == 0 then return 0 end
if redis.call('EXISTS', KEYS[2]) == 0 then return 1 end
--!include _lock_common.lua
wake(KEYS[2], KEYS[3], KEYS[4], ARGV[2], tonumber(ARGV[1]), math.floor(now_us() / 1000))
return 1
