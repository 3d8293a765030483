-- attempt() on one token_bucket limiter: _rl_common.lua's rules written out
-- straight for the hot path (see rl_sw.lua).
local key = KEYS[1]
local rate, unit, cap, need = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
local t = redis.call('TIME')
local real = tonumber(t[1]) * 1000000 + tonumber(t[2])
--!include _rl_tb_level.lua
local shift = now - real
if n >= need then
  local left = n - need
  local full = cdiv(cap - left, rate)
  redis.call('HSET', key, 'n', string.format('%.0f', left), 't', string.format('%.0f', now))
  redis.call('PEXPIRE', key, math.floor((full + shift + 999) / 1000) + 2)
  return { 1, idiv(left, unit), 0, full > 0 and full + shift or 0, 0 }
end
local block = 0
if n < unit then block = cdiv(unit - n, rate) + shift end
local reset = cdiv(cap - n, rate)
return { 0, idiv(n, unit), cdiv(need - n, rate) + shift, reset > 0 and reset + shift or 0, block }
