-- Shared by rl_tb.lua and rl_reserve.lua (inlined at build time): exact
-- integer division, and the bucket's level `n` (in 1/W units) as of `now`
-- (the state's own time if that is later than the server's `real` time).
-- Expects `key`, `rate`, `cap` and `real` to be defined.
-- floor(x / y) and ceil(x / y), exact for integers 0 <= x < 2^53 (ceil: 0 for x <= 0)
local function idiv(x, y)
  local q = math.floor(x / y)
  if q * y > x then q = q - 1 elseif (q + 1) * y <= x then q = q + 1 end
  return q
end
local function cdiv(x, y)
  if x <= 0 then return 0 end
  local q = idiv(x, y)
  if q * y < x then q = q + 1 end
  return q
end
local now, n = real, cap
local v = redis.call('HMGET', key, 'n', 't')
local sn, st = tonumber(v[1]), tonumber(v[2])
if sn and st then
  if st > now then now = st end
  if sn > cap then sn = cap elseif sn < 0 then sn = 0 end
  local e = now - st
  if e < cdiv(cap - sn, rate) then n = sn + e * rate end
end
