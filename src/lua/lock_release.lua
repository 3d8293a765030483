-- Releases the lock if `token` holds it, and wakes the next waiter.
-- KEYS: lock, waiters, queue, wake
-- ARGV: token, heartbeat ms, private wake-up key prefix
-- Returns 1 if released, 0 if the lock was not this owner's.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
if redis.call('EXISTS', KEYS[2]) == 0 then return 1 end
--!include _lock_common.lua
wake(KEYS[2], KEYS[3], KEYS[4], ARGV[3], tonumber(ARGV[2]), math.floor(now_us() / 1000))
return 1
