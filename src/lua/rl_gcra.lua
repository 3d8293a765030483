-- attempt() on one gcra limiter: _rl_common.lua's rules written out straight
-- for the hot path (see rl_sw.lua). Durations are pairs {us, f} = us + f / l.
local key = KEYS[1]
local l = tonumber(ARGV[6])
local T1, T2 = tonumber(ARGV[7]), tonumber(ARGV[8])
local B1, B2 = tonumber(ARGV[9]), tonumber(ARGV[10])
local C1, C2 = tonumber(ARGV[11]), tonumber(ARGV[12])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
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
local function wait(a1, a2)
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
    local carry = math.floor(f / l)
    if carry * l > f then carry = carry - 1 elseif (carry + 1) * l <= f then carry = carry + 1 end
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
local n1, n2 = add(a1, a2, C1, C2)
local w1, w2 = sub(n1, n2, B1, B2)
if w1 < now or (w1 == now and w2 == 0) then
  local val = string.format('%.0f', n1)
  if n2 > 0 then val = val .. ':' .. string.format('%.0f', n2) end
  local d = wait(n1, n2)
  redis.call('SET', key, val, 'PX', math.floor((d + 999) / 1000) + 2)
  return { 1, remaining(n1, n2), 0, d, 0 }
end
local o1, o2 = sub(a1, a2, B1, B2)
o1, o2 = add(o1, o2, T1, T2)
return { 0, remaining(a1, a2), wait(w1, w2), wait(a1, a2), wait(o1, o2) }
