-- around: ARGV[3] member, ARGV[4] radius. The window keeps 2*radius+1 entries
-- when the board has them, shifted at the top and bottom edges.
--!include _lb_common.lua
local b = board(KEYS[1])
local s, zm = get(b, ARGV[3])
if not s then return {} end
local radius = tonumber(ARGV[4])
local idx
if DESC then idx = redis.call('ZREVRANK', b.z, zm) else idx = redis.call('ZRANK', b.z, zm) end
local n = redis.call('ZCARD', b.z)
local start = idx - radius
if start < 0 then start = 0 end
local stop = start + 2 * radius
if stop > n - 1 then
  stop = n - 1
  start = stop - 2 * radius
  if start < 0 then start = 0 end
end
return list(b, start, stop)
