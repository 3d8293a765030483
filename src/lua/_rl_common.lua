-- Shared by rl_attempt.lua and rl_peek.lua (inlined at build time).
-- Times are integer microseconds of the Redis server's clock (TIME); every
-- number stays an integer below 2^53, so Lua's doubles hold it exactly (the
-- Rust side refuses settings that could leave that range).
--
-- KEYS[i]: the state key of limiter i.
-- ARGV[1]: N, the number of limiters; then 11 numbers per limiter:
--   alg (1 sliding_window, 2 fixed_window, 3 token_bucket, 4 gcra,
--   5 fixed_window from the first hit),
--   limit, window_us, cost, then p1..p7 (constants computed by src/ratelimit.rs):
--   token_bucket: p1 L, p2 W, p3 capacity (burst * W), p4 cost * W
--     (tokens are counted in 1/W units and L of them flow in per microsecond:
--     rate = L / W tokens per microsecond, limit / window reduced)
--   gcra: p1 L, p2..p3 T, p4..p5 burst * T, p6..p7 cost * T
--     (a duration is a pair {us, f} = us + f / L microseconds, 0 <= f < L;
--     T = window / limit is the emission interval)
-- Reply: { all allowed (1/0), then per limiter: remaining, retry_us, reset_us, block_us }
-- (block_us: how long an attempt of cost 1 would still be refused, 0 if it would pass).
local SLOTS = 11
local t = redis.call('TIME')
local REAL_NOW = tonumber(t[1]) * 1000000 + tonumber(t[2])

--!include _rl_div.lua

local function fmt(x)
  return string.format('%.0f', x)
end

-- A key TTL (ms) that outlives `d` microseconds from REAL_NOW: Redis counts
-- expiry in ms from the (slightly earlier) start of this script.
local function ttl_ms(d)
  if d < 0 then d = 0 end
  return cdiv(d, 1000) + 2
end

local function limiter(i)
  local b = 1 + (i - 1) * SLOTS
  local alg = tonumber(ARGV[b + 1])
  local a = { alg, tonumber(ARGV[b + 2]), tonumber(ARGV[b + 3]), tonumber(ARGV[b + 4]) }
  if alg > 2 then
    for j = 5, SLOTS do
      a[j] = tonumber(ARGV[b + j])
    end
  end
  return { key = KEYS[i], alg = alg, limit = a[2], W = a[3], cost = a[4], p = a }
end

-- The algorithms: each a builder returning { load, decide, commit }.
local BUILD = {}

-- sliding_window: a list of the microsecond times of the allowed units,
-- oldest first (appended in time order: the time used is never earlier than
-- the newest entry, so the list stays sorted even if the clock steps back).
BUILD[1] = function()
  local SW = {}

  function SW.load(L, trim)
    local key = L.key
    local s = { now = REAL_NOW, count = 0, skip = 0 }
    local lastv = redis.call('LINDEX', key, -1)
    if not lastv then return s end
    local last = tonumber(lastv)
    if last > s.now then s.now = last end
    s.last = last
    local len = redis.call('LLEN', key)
    local cut = s.now - L.W -- entries at or before `cut` are out of the window
    local stale = 0
    if last <= cut then
      stale = len
    else
      local head = redis.call('LRANGE', key, 0, 15)
      while stale < #head and tonumber(head[stale + 1]) <= cut do
        stale = stale + 1
      end
      if stale == #head then
        -- more stale entries than we looked at: binary search for the first
        -- entry inside the window (the last one is inside)
        local lo, hi = #head, len - 1
        while lo < hi do
          local mid = math.floor((lo + hi) / 2)
          if tonumber(redis.call('LINDEX', key, mid)) <= cut then
            lo = mid + 1
          else
            hi = mid
          end
        end
        stale = lo
      end
    end
    if trim and stale > 0 then
      if stale >= len then
        redis.call('DEL', key)
      else
        redis.call('LTRIM', key, stale, -1)
      end
      len = len - stale
      stale = 0
    end
    s.skip = stale
    s.count = len - stale
    return s
  end

  -- time of the k-th oldest unit inside the window (1-based)
  local function sw_kth(L, s, k)
    return tonumber(redis.call('LINDEX', L.key, s.skip + k - 1))
  end

  function SW.decide(L, s)
    local r = { remaining = L.limit - s.count, ok = s.count + L.cost <= L.limit, retry = 0, block = 0, reset = 0 }
    if not r.ok then
      r.retry = sw_kth(L, s, s.count + L.cost - L.limit) + L.W - s.now
    end
    if s.count + 1 > L.limit then
      r.block = sw_kth(L, s, s.count + 1 - L.limit) + L.W - s.now
    end
    if s.count > 0 then r.reset = s.last + L.W - s.now end
    return r
  end

  function SW.commit(L, s, r)
    local v = fmt(s.now)
    local left = L.cost
    while left > 0 do
      local n = math.min(left, 1000)
      local args = {}
      for j = 1, n do
        args[j] = v
      end
      redis.call('RPUSH', L.key, unpack(args))
      left = left - n
    end
    redis.call('PEXPIRE', L.key, ttl_ms(s.now + L.W - REAL_NOW))
    r.remaining = r.remaining - L.cost
    r.reset = L.W
  end

  return SW
end

-- fixed_window: "<window index>:<count>", windows aligned on multiples of
-- window_us since the Unix epoch.
BUILD[2] = function()
  local FW = {}

  function FW.load(L)
    local s = { now = REAL_NOW, count = 0 }
    local idx = idiv(s.now, L.W)
    local v = redis.call('GET', L.key)
    if v then
      local si, sc = string.match(v, '^(%d+):(%d+)$')
      si, sc = tonumber(si), tonumber(sc)
      if si and sc then
        if si > idx then
          -- the clock stepped back: stay in the stored window
          idx = si
          s.now = si * L.W
        end
        if si == idx then s.count = sc end
      end
    end
    s.idx = idx
    s.finish = (idx + 1) * L.W
    return s
  end

  function FW.decide(L, s)
    local left = s.finish - s.now
    local r = { remaining = L.limit - s.count, ok = s.count + L.cost <= L.limit, retry = 0, block = 0, reset = 0 }
    if not r.ok then r.retry = left end
    if s.count + 1 > L.limit then r.block = left end
    if s.count > 0 then r.reset = left end
    return r
  end

  function FW.commit(L, s, r)
    redis.call('SET', L.key, fmt(s.idx) .. ':' .. fmt(s.count + L.cost), 'PX', ttl_ms(s.finish - REAL_NOW))
    r.remaining = r.remaining - L.cost
    r.reset = s.finish - s.now
  end

  return FW
end

-- fixed_window from the first hit: "<count>", the key expiring with the
-- window that its first unit started. Nothing in it depends on the limit or
-- the window: a limiter with other settings reads the same count and time.
BUILD[5] = function()
  local FH = {}

  function FH.load(L)
    local s = { now = REAL_NOW, count = 0, left = cdiv(L.W, 1000) * 1000 }
    local v = redis.call('GET', L.key)
    if v then
      local c = tonumber(string.match(v, '^(%d+)$'))
      local pt = redis.call('PTTL', L.key)
      if c and pt > 0 then
        s.count = c
        s.left = pt * 1000
      end
    end
    return s
  end

  function FH.decide(L, s)
    local r = { remaining = L.limit - s.count, ok = s.count + L.cost <= L.limit, retry = 0, block = 0, reset = 0 }
    if not r.ok then r.retry = s.left end
    if s.count + 1 > L.limit then r.block = s.left end
    if s.count > 0 then r.reset = s.left end
    return r
  end

  function FH.commit(L, s, r)
    if s.count > 0 then
      redis.call('SET', L.key, fmt(s.count + L.cost), 'KEEPTTL')
    else
      -- the key's expiry is the window's end, by definition
      redis.call('SET', L.key, fmt(L.cost), 'PX', cdiv(L.W, 1000))
    end
    r.remaining = r.remaining - L.cost
    r.reset = s.left
  end

  return FH
end

-- token_bucket: hash { n = tokens in 1/W units, t = time of n }; a missing
-- key is a full bucket.
BUILD[3] = function()
  local TB = {}

  function TB.load(L)
    local rate, cap = L.p[5], L.p[7]
    local s = { now = REAL_NOW, n = cap }
    local v = redis.call('HMGET', L.key, 'n', 't')
    local n, t0 = tonumber(v[1]), tonumber(v[2])
    if n and t0 then
      if t0 > s.now then s.now = t0 end
      if n > cap then n = cap elseif n < 0 then n = 0 end
      local e = s.now - t0
      if e >= cdiv(cap - n, rate) then
        s.n = cap
      else
        s.n = n + e * rate
      end
    end
    return s
  end

  function TB.decide(L, s)
    local rate, unit, cap, need = L.p[5], L.p[6], L.p[7], L.p[8]
    local r = { remaining = idiv(s.n, unit), ok = s.n >= need, retry = 0, block = 0 }
    if not r.ok then r.retry = cdiv(need - s.n, rate) end
    if s.n < unit then r.block = cdiv(unit - s.n, rate) end
    r.reset = cdiv(cap - s.n, rate)
    return r
  end

  function TB.commit(L, s, r)
    local rate, unit, cap, need = L.p[5], L.p[6], L.p[7], L.p[8]
    local n = s.n - need
    local full = cdiv(cap - n, rate)
    redis.call('HSET', L.key, 'n', fmt(n), 't', fmt(s.now))
    redis.call('PEXPIRE', L.key, ttl_ms(s.now + full - REAL_NOW))
    r.remaining = idiv(n, unit)
    r.reset = full
  end

  return TB
end

-- gcra: the theoretical arrival time (TAT) as "us" or "us:f"; a missing key
-- (or a TAT in the past) is a full allowance.
BUILD[4] = function()
  local GC = {}

  local function padd(x, y, l)
    local us, f = x[1] + y[1], x[2] + y[2]
    if f >= l then
      f = f - l
      us = us + 1
    end
    return { us, f }
  end

  local function psub(x, y, l)
    local us, f = x[1] - y[1], x[2] - y[2]
    if f < 0 then
      f = f + l
      us = us - 1
    end
    return { us, f }
  end

  local function pcmp(x, y)
    if x[1] ~= y[1] then return x[1] < y[1] and -1 or 1 end
    if x[2] ~= y[2] then return x[2] < y[2] and -1 or 1 end
    return 0
  end

  -- a positive pair, in whole microseconds rounded up
  local function pceil(x)
    if x[2] > 0 then return x[1] + 1 end
    return x[1]
  end

  local function pmul(q, T, l)
    local f = q * T[2]
    local carry = idiv(f, l)
    return { q * T[1] + carry, f - carry * l }
  end

  -- floor(D / T) for D >= 0
  local function pdiv(D, T, l)
    local q = math.floor((D[1] + D[2] / l) / (T[1] + T[2] / l))
    if q < 0 then q = 0 end
    while q > 0 and pcmp(pmul(q, T, l), D) > 0 do
      q = q - 1
    end
    while pcmp(pmul(q + 1, T, l), D) <= 0 do
      q = q + 1
    end
    return q
  end

  function GC.load(L)
    local l = L.p[5]
    local s = { now = REAL_NOW }
    local tat = { REAL_NOW, 0 }
    local v = redis.call('GET', L.key)
    if v then
      local us, f = string.match(v, '^(%d+):?(%d*)$')
      us, f = tonumber(us), tonumber(f) or 0
      if us then
        if f >= l then f = 0 end
        if pcmp({ us, f }, tat) > 0 then tat = { us, f } end
      end
    end
    s.tat = tat
    return s
  end

  local function gc_remaining(L, s, tat)
    local l, T, BT = L.p[5], { L.p[6], L.p[7] }, { L.p[8], L.p[9] }
    local D = psub(padd({ s.now, 0 }, BT, l), tat, l)
    if D[1] < 0 then return 0 end
    return pdiv(D, T, l)
  end

  function GC.decide(L, s)
    local l, T, BT, CT = L.p[5], { L.p[6], L.p[7] }, { L.p[8], L.p[9] }, { L.p[10], L.p[11] }
    local now = { s.now, 0 }
    local r = { retry = 0, block = 0 }
    s.new_tat = padd(s.tat, CT, l)
    local allow_at = psub(s.new_tat, BT, l)
    r.ok = pcmp(allow_at, now) <= 0
    if not r.ok then r.retry = pceil(psub(allow_at, now, l)) end
    local allow1 = psub(padd(s.tat, T, l), BT, l)
    if pcmp(allow1, now) > 0 then r.block = pceil(psub(allow1, now, l)) end
    r.remaining = gc_remaining(L, s, s.tat)
    r.reset = pceil(psub(s.tat, now, l))
    return r
  end

  function GC.commit(L, s, r)
    local l = L.p[5]
    local tat = s.new_tat
    local v = fmt(tat[1])
    if tat[2] > 0 then v = v .. ':' .. fmt(tat[2]) end
    local d = pceil(psub(tat, { s.now, 0 }, l))
    redis.call('SET', L.key, v, 'PX', ttl_ms(s.now + d - REAL_NOW))
    r.remaining = gc_remaining(L, s, tat)
    r.reset = d
  end

  return GC
end

-- the algorithms' code is built on first use only (each call of a script
-- runs its whole body: defining every function each time would cost more
-- than the check itself)
local ALG = {}
local function algorithm(code)
  local A = ALG[code]
  if not A then
    local build = BUILD[code]
    if not build then error('rediskit: bad rate limiter arguments') end
    A = build()
    ALG[code] = A
  end
  return A
end

local function check(trim)
  local n = tonumber(ARGV[1])
  local Ls, Ss, Rs = {}, {}, {}
  local all = true
  for i = 1, n do
    local L = limiter(i)
    local A = algorithm(L.alg)
    local s = A.load(L, trim)
    local r = A.decide(L, s)
    Ls[i], Ss[i], Rs[i] = L, s, r
    if not r.ok then all = false end
  end
  return n, Ls, Ss, Rs, all
end

local function reply(n, Ls, Ss, Rs, all)
  local out = { all and 1 or 0 }
  for i = 1, n do
    local r, shift = Rs[i], Ss[i].now - REAL_NOW
    local k = 4 * i - 2
    out[k] = r.remaining > 0 and r.remaining or 0
    -- durations from the time judged at, to durations from now
    out[k + 1] = r.retry > 0 and r.retry + shift or 0
    out[k + 2] = r.reset > 0 and r.reset + shift or 0
    out[k + 3] = r.block > 0 and r.block + shift or 0
  end
  return out
end
