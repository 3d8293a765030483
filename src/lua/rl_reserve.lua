-- reserve() on one token_bucket or gcra limiter: the units are taken now if
-- they are there, otherwise from the future (the state moves to the time
-- they will have refilled), unless that wait is above the caller's maximum
-- (then nothing changes). Same arguments as rl_tb.lua / rl_gcra.lua, plus
-- ARGV[13]: the longest acceptable wait in microseconds (-1: no maximum).
-- Reply: { reserved (1/0), remaining now, wait_us, reset_us, 0 }.
local key = KEYS[1]
local alg = tonumber(ARGV[2])
local maxw = tonumber(ARGV[13])
local t = redis.call('TIME')
local real = tonumber(t[1]) * 1000000 + tonumber(t[2])
-- floor(x / y) and ceil(x / y), exact for integers 0 <= x < 2^53
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
local function too_long(wait)
  return maxw >= 0 and wait > maxw
end

if alg == 3 then
  -- token_bucket (see rl_tb.lua)
  local rate, unit, cap, need = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
  local now, n = real, cap
  local v = redis.call('HMGET', key, 'n', 't')
  local sn, st = tonumber(v[1]), tonumber(v[2])
  if sn and st then
    if st > now then now = st end
    if sn > cap then sn = cap elseif sn < 0 then sn = 0 end
    local e = now - st
    if e < cdiv(cap - sn, rate) then n = sn + e * rate end
  end
  local shift = now - real
  local wait, remaining, at = 0, 0, now
  if n < need then
    local w = cdiv(need - n, rate)
    wait = w + shift
    if too_long(wait) then
      local reset = cdiv(cap - n, rate)
      return { 0, idiv(n, unit), wait, reset > 0 and reset + shift or 0, 0 }
    end
    -- taken at the exact instant they are there, then refilling until
    -- `at` (the next whole microsecond)
    n = n + w * rate
    at = now + w
  end
  local left = n - need
  if left > cap then left = cap end
  if wait == 0 then remaining = idiv(left, unit) end
  local full = cdiv(cap - left, rate)
  -- (a bucket in debt is not full before `at`, whatever it holds then)
  local reset = 0
  if full > 0 or wait > 0 then reset = full + (at - real) end
  redis.call('HSET', key, 'n', string.format('%.0f', left), 't', string.format('%.0f', at))
  redis.call('PEXPIRE', key, math.floor((full + (at - real) + 999) / 1000) + 2)
  return { 1, remaining, wait, reset, 0 }
end

-- gcra (see rl_gcra.lua). Durations are pairs {us, f} = us + f / l.
local l = tonumber(ARGV[6])
local T1, T2 = tonumber(ARGV[7]), tonumber(ARGV[8])
local B1, B2 = tonumber(ARGV[9]), tonumber(ARGV[10])
local C1, C2 = tonumber(ARGV[11]), tonumber(ARGV[12])
local now = real
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
local wait = wait_of(w1, w2)
if too_long(wait) then
  return { 0, remaining(a1, a2), wait, wait_of(a1, a2), 0 }
end
local val = string.format('%.0f', n1)
if n2 > 0 then val = val .. ':' .. string.format('%.0f', n2) end
local d = wait_of(n1, n2)
redis.call('SET', key, val, 'PX', math.floor((d + 999) / 1000) + 2)
return { 1, remaining(n1, n2), wait, d, 0 }
