-- A waiter gives up: leave the waiters and, if the lock is free, pass the
-- turn (or a wake-up hint this waiter consumed) on to the next one.
-- KEYS: lock, waiters, queue, wake
-- ARGV: token, heartbeat ms, private wake-up key prefix
--!include _lock_common.lua
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('DEL', ARGV[3] .. ARGV[1])
trim(KEYS[2], KEYS[4])
if redis.call('EXISTS', KEYS[1]) == 0 then
  wake(KEYS[2], KEYS[3], KEYS[4], ARGV[3], tonumber(ARGV[2]), math.floor(now_us() / 1000))
end
return 1
