-- around on a plain board (ties lexical, ordinal ranks): the lean path.
-- KEYS[1] board; ARGV[1] 'd' or 'a' (order), ARGV[2] member, ARGV[3] radius.
-- Returns {first position, {member, score, ...}} for positions
-- idx-2r .. idx+2r (clipped): the 2r+1 window, shifted at the edges, lies
-- inside it, and the caller cuts it out (no ZCARD needed).
local desc = ARGV[1] == 'd'
local idx
if desc then idx = redis.call('ZREVRANK', KEYS[1], ARGV[2]) else idx = redis.call('ZRANK', KEYS[1], ARGV[2]) end
if not idx then return {} end
local r = tonumber(ARGV[3])
local first = idx - 2 * r
if first < 0 then first = 0 end
if desc then
  return { first, idx, redis.call('ZREVRANGE', KEYS[1], first, idx + 2 * r, 'WITHSCORES') }
end
return { first, idx, redis.call('ZRANGE', KEYS[1], first, idx + 2 * r, 'WITHSCORES') }
