-- attempt() on one fixed_window limiter with window_start 'first_hit':
-- _rl_common.lua's rules (BUILD[5]) written out straight for the hot path
-- (see rl_sw.lua).
local key = KEYS[1]
local limit, W, cost = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local wms = math.floor(W / 1000)
if wms * 1000 < W then wms = wms + 1 end
local count, left = 0, wms * 1000
local v = redis.call('GET', key)
if v then
  local c = tonumber(string.match(v, '^(%d+)$'))
  local pt = redis.call('PTTL', key)
  if c and pt > 0 then
    count, left = c, pt * 1000
  end
end
if count + cost <= limit then
  if count > 0 then
    redis.call('SET', key, string.format('%.0f', count + cost), 'KEEPTTL')
  else
    redis.call('SET', key, string.format('%.0f', cost), 'PX', wms)
  end
  return { 1, limit - count - cost, 0, left, 0 }
end
--!include _rl_window_refused.lua
return refused(limit, count, left)
