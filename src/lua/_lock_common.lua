-- Shared by the lock_* scripts. Key layout (K = the lock key):
--   K             the lock: owner token, always with a TTL
--   {K}:fence     last fencing token handed out (Redis microseconds, made strictly increasing)
--   {K}:waiters   zset: waiter token -> heartbeat deadline (ms); a waiter that stops
--                 refreshing it (died) is dropped by the next script that looks
--   {K}:queue     zset: fair waiter token -> arrival number (FIFO)
--   {K}:wake      list: wake-up hints for waiters in non-fair mode (BLPOP)
--   {K}:wake:<t>  list: the wake-up hint of fair waiter <t>
-- Wake-up hints only shorten a wait: every decision is taken by these scripts.
-- No hint outlives the waiters: a released lock nobody waits for leaves only
-- {K}:fence behind.

local function now_us()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end

-- Never more wake-up hints pending than there are waiters: call whenever
-- waiters left {K}:waiters (took the lock, gave up, or died). A hint pushed
-- for a waiter that then took the lock without popping it (its BLPOP had just
-- timed out, or it was between two attempts) would otherwise outlive every
-- waiter; with nobody waiting, none stays behind.
local function trim(w, n)
  local waiting = redis.call('ZCARD', w)
  if waiting == 0 then
    redis.call('DEL', n)
  elseif redis.call('LLEN', n) > waiting then
    redis.call('LTRIM', n, 0, waiting - 1)
  end
end

-- Drops waiters whose heartbeat ran out, with their hints.
local function purge(w, q, n, priv, ms)
  local dead = redis.call('ZRANGEBYSCORE', w, '-inf', ms)
  if #dead > 0 then
    redis.call('ZREMRANGEBYSCORE', w, '-inf', ms)
    for i = 1, #dead, 500 do
      redis.call('ZREM', q, unpack(dead, i, math.min(i + 499, #dead)))
    end
    for _, t in ipairs(dead) do redis.call('DEL', priv .. t) end
    trim(w, n)
  end
end

-- The lock is free: wake the head of the fair queue, or else one waiter.
-- Never more hints pending than there are waiters, and they expire.
local function wake(w, q, n, priv, hb, ms)
  if redis.call('EXISTS', w) == 0 then return end
  purge(w, q, n, priv, ms)
  local head = redis.call('ZRANGE', q, 0, 0)[1]
  if head then
    local k = priv .. head
    if redis.call('LLEN', k) == 0 then
      redis.call('RPUSH', k, '1')
      redis.call('PEXPIRE', k, hb)
    end
    return
  end
  local waiting = redis.call('ZCARD', w)
  if waiting > 0 and redis.call('LLEN', n) < waiting then
    redis.call('RPUSH', n, '1')
    redis.call('PEXPIRE', n, hb)
  end
end
