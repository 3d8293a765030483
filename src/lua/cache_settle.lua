-- Ends a compute: writes its value (if there is one to cache), ends the
-- writer's claim (only its own) and wakes the waiters. A compute that
-- failed, or whose null result is not cached, writes nothing and wakes them
-- all the same; the token they get says which.
-- KEYS: value, claim, waiters, wake-up list
-- ARGV: claim token, stored value ('' : nothing to write), px (0: no
--       expiry), wake-up list ms, wake-up token
if ARGV[2] ~= '' then
  local px = tonumber(ARGV[3])
  if px > 0 then
    redis.call('SET', KEYS[1], ARGV[2], 'PX', px)
  else
    redis.call('SET', KEYS[1], ARGV[2])
  end
end
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
--!include _cache_wake.lua
wake(KEYS[3], KEYS[4], ARGV[5], tonumber(ARGV[4]))
return 1
