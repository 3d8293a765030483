--!flags allow-oom
-- A waiter gives up: leave the waiters and, if the lock is free (or reserved
-- for the fair queue, maybe for this waiter), pass the turn (or a wake-up hint
-- this waiter consumed) on to the next one.
-- KEYS: lock, waiters, queue, wake
-- ARGV: token, heartbeat ms, private wake-up key prefix
--!include _lock_common.lua
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('DEL', ARGV[3] .. ARGV[1])
trim(KEYS[2], KEYS[4])
local v = redis.call('GET', KEYS[1])
if not v or v == RESERVED then
  free(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[3], tonumber(ARGV[2]), math.floor(now_us() / 1000))
end
return 1
