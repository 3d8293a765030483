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
local waiting = trim(KEYS[2], KEYS[4])
local v = redis.call('GET', KEYS[1])
if not v or v == RESERVED then
  free(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[3], tonumber(ARGV[2]), math.floor(now_us() / 1000))
elseif waiting == 0 and string.sub(v, -2) == MARK then
  -- the last waiter gave up: the holder's value loses its mark (TTL kept)
  redis.call('SET', KEYS[1], string.sub(v, 1, -3), 'KEEPTTL')
end
return 1
