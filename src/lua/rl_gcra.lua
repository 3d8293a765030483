-- attempt() on one gcra limiter: _rl_common.lua's rules written out straight
-- for the hot path (see rl_sw.lua). Durations are pairs {us, f} = us + f / l.
local key = KEYS[1]
local l = tonumber(ARGV[6])
local T1, T2 = tonumber(ARGV[7]), tonumber(ARGV[8])
local B1, B2 = tonumber(ARGV[9]), tonumber(ARGV[10])
local C1, C2 = tonumber(ARGV[11]), tonumber(ARGV[12])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
--!include _rl_gcra_state.lua
local n1, n2 = add(a1, a2, C1, C2)
local w1, w2 = sub(n1, n2, B1, B2)
if w1 < now or (w1 == now and w2 == 0) then
  local val = string.format('%.0f', n1)
  if n2 > 0 then val = val .. ':' .. string.format('%.0f', n2) end
  local d = wait_of(n1, n2)
  redis.call('SET', key, val, 'PX', math.floor((d + 999) / 1000) + 2)
  return { 1, remaining(n1, n2), 0, d, 0 }
end
local o1, o2 = sub(a1, a2, B1, B2)
o1, o2 = add(o1, o2, T1, T2)
return { 0, remaining(a1, a2), wait_of(w1, w2), wait_of(a1, a2), wait_of(o1, o2) }
