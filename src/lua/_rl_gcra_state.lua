-- Shared by rl_gcra.lua and rl_reserve.lua (inlined at build time): the
-- arithmetic of durations as pairs {us, f} = us + f / l, the units left at a
-- theoretical arrival time, and the stored TAT {a1, a2} (never before now).
-- Expects `key`, `l`, `T1`, `T2`, `B1`, `B2` and `now` to be defined.
--!include _rl_div.lua
local function add(a1, a2, b1, b2)
  a1, a2 = a1 + b1, a2 + b2
  if a2 >= l then return a1 + 1, a2 - l end
  return a1, a2
end
local function sub(a1, a2, b1, b2)
  a1, a2 = a1 - b1, a2 - b2
  if a2 < 0 then return a1 - 1, a2 + l end
  return a1, a2
end
-- a pair minus now, in whole microseconds rounded up (0 if not after now)
local function wait_of(a1, a2)
  local d = a1 - now
  if a2 > 0 then d = d + 1 end
  if d < 0 then return 0 end
  return d
end
-- floor((now + burst * T - tat) / T)
local function remaining(a1, a2)
  local d1, d2 = sub(now + B1, B2, a1, a2)
  if d1 < 0 then return 0 end
  local function mul(q)
    local f = q * T2
    local carry = idiv(f, l)
    return q * T1 + carry, f - carry * l
  end
  local function le(q)
    local m1, m2 = mul(q)
    return m1 < d1 or (m1 == d1 and m2 <= d2)
  end
  local q = math.floor((d1 + d2 / l) / (T1 + T2 / l))
  if q < 0 then q = 0 end
  while q > 0 and not le(q) do q = q - 1 end
  while le(q + 1) do q = q + 1 end
  return q
end
local a1, a2 = now, 0
local v = redis.call('GET', key)
if v then
  local us, f = string.match(v, '^(%d+):?(%d*)$')
  us, f = tonumber(us), tonumber(f) or 0
  if us then
    if f >= l then f = 0 end
    if us > a1 or (us == a1 and f > 0) then a1, a2 = us, f end
  end
end
