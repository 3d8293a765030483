-- Shared by rl_tb.lua and rl_reserve.lua (inlined at build time): exact
-- integer division (_rl_div.lua), and the bucket's level `n` (in 1/W units)
-- as of `now` (the state's own time if that is later than the server's
-- `real` time). Expects `key`, `rate`, `cap` and `real` to be defined.
--!include _rl_div.lua
local now, n = real, cap
local v = redis.call('HMGET', key, 'n', 't')
local sn, st = tonumber(v[1]), tonumber(v[2])
if sn and st then
  if st > now then now = st end
  if sn > cap then sn = cap elseif sn < 0 then sn = 0 end
  local e = now - st
  if e < cdiv(cap - sn, rate) then n = sn + e * rate end
end
