--!flags
-- The registry (RedisKit\registry()): records that an object exists.
-- KEYS[1] the registry hash (prefix .. 'rediskit:registry').
-- ARGV[1] the entry's field (kind .. ':' .. name), ARGV[2] its kind's count
-- field ('#' .. kind), ARGV[3] the most entries of one kind, ARGV[4] the
-- object's settings ('k=v&k=v', or '').
-- An entry seen again gets its new settings and time. A new one is added
-- while its kind has fewer than ARGV[3] entries. Returns 1 (recorded) or 0
-- (the kind is full: nothing written).
local t = redis.call('TIME')
local v = 'seen=' .. t[1] .. '.' .. string.format('%06d', tonumber(t[2]))
if ARGV[4] ~= '' then v = v .. '&' .. ARGV[4] end
if redis.call('HSET', KEYS[1], ARGV[1], v) == 0 then return 1 end
if tonumber(redis.call('HINCRBY', KEYS[1], ARGV[2], 1)) > tonumber(ARGV[3]) then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('HINCRBY', KEYS[1], ARGV[2], -1)
  return 0
end
return 1
