-- around on a plain board (ties lexical, ordinal ranks): the lean path.
-- KEYS[1] board; ARGV[1] 'd' or 'a' (order), ARGV[2] member, ARGV[3] radius.
-- Returns {first 0-based position, {member, score, ...}} or {}.
local desc = ARGV[1] == 'd'
local idx
if desc then idx = redis.call('ZREVRANK', KEYS[1], ARGV[2]) else idx = redis.call('ZRANK', KEYS[1], ARGV[2]) end
if not idx then return {} end
local radius = tonumber(ARGV[3])
local n = redis.call('ZCARD', KEYS[1])
local start = idx - radius
if start < 0 then start = 0 end
local stop = start + 2 * radius
if stop > n - 1 then
  stop = n - 1
  start = stop - 2 * radius
  if start < 0 then start = 0 end
end
if desc then
  return { start, redis.call('ZREVRANGE', KEYS[1], start, stop, 'WITHSCORES') }
end
return { start, redis.call('ZRANGE', KEYS[1], start, stop, 'WITHSCORES') }
