-- attempt() on one fixed_window limiter: _rl_common.lua's rules written out
-- straight for the hot path (see rl_sw.lua).
local key = KEYS[1]
local limit, W, cost = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local t = redis.call('TIME')
local real = tonumber(t[1]) * 1000000 + tonumber(t[2])
local now = real
local idx = math.floor(now / W)
if idx * W > now then idx = idx - 1 elseif (idx + 1) * W <= now then idx = idx + 1 end
local count = 0
local v = redis.call('GET', key)
if v then
  local si, sc = string.match(v, '^(%d+):(%d+)$')
  si, sc = tonumber(si), tonumber(sc)
  if si and sc then
    if si > idx then
      idx = si
      now = si * W
    end
    if si == idx then count = sc end
  end
end
local left = (idx + 1) * W - real
if count + cost <= limit then
  redis.call('SET', key, string.format('%.0f:%.0f', idx, count + cost), 'PX', math.floor((left + 999) / 1000) + 2)
  local rest = limit - count - cost
  if rest < 0 then rest = 0 end
  return { 1, rest, 0, left, 0 }
end
--!include _rl_window_refused.lua
return refused(limit, count, left)
