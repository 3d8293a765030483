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
local function too_long(wait)
  return maxw >= 0 and wait > maxw
end

if alg == 3 then
  -- token_bucket (see rl_tb.lua)
  local rate, unit, cap, need = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
  --!include _rl_tb_level.lua
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
--!include _rl_gcra_state.lua
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
