-- around on a plain board (ties lexical, ordinal ranks): the lean path.
-- KEYS[1] board; ARGV[1] 'd' or 'a' (order), ARGV[2] member, ARGV[3] radius.
-- Returns {first position, the member's position, {member, score, ...}}: the
-- 2r+1 window around the member, shifted at the top and bottom so it stays
-- full, exactly as the caller shows it.
local desc = ARGV[1] == 'd'
local idx
if desc then idx = redis.call('ZREVRANK', KEYS[1], ARGV[2]) else idx = redis.call('ZRANK', KEYS[1], ARGV[2]) end
if not idx then return {} end
local r = tonumber(ARGV[3])
local first = idx - r
local n = redis.call('ZCARD', KEYS[1])
if first + 2 * r >= n then first = n - 1 - 2 * r end
if first < 0 then first = 0 end
if desc then
  return { first, idx, redis.call('ZREVRANGE', KEYS[1], first, first + 2 * r, 'WITHSCORES') }
end
return { first, idx, redis.call('ZRANGE', KEYS[1], first, first + 2 * r, 'WITHSCORES') }
