--!flags allow-oom
-- Releases the lock if `token` holds it, and wakes the next waiter. With
-- nobody waiting: a GET and a DEL.
-- KEYS: lock, waiters, queue, wake
-- ARGV: token, heartbeat ms, private wake-up key prefix
-- Returns 1 if released, 0 if the lock was not this owner's.
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
if v ~= ARGV[1] .. '\0w' then return 0 end
--!include _lock_common.lua
free(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[3], tonumber(ARGV[2]), math.floor(now_us() / 1000))
return 1
