-- Shared by the lock_* scripts. Key layout (K = the lock key):
--   K             the lock, always with a TTL. Its value is one of:
--                   <token>       held by that owner, nobody registered as waiting
--                   <token>\0w    held, and waiters registered while it was: the
--                                 release must wake one (a plain GET + DEL
--                                 release has nothing else to look at)
--                   \0q           free, but reserved for the head of the fair
--                                 queue (released while fair waiters queued)
--   {K}:fence     last fencing token handed out (Redis microseconds, made strictly
--                 increasing), issued only when the holder asks for one
--   {K}:waiters   zset: waiter token -> heartbeat deadline (ms); a waiter that stops
--                 refreshing it (died) is dropped by the next script that looks
--   {K}:queue     zset: fair waiter token -> arrival number (FIFO)
--   {K}:wake      list: wake-up hints for waiters in non-fair mode (BLPOP)
--   {K}:wake:<t>  list: the wake-up hint of fair waiter <t>
-- Wake-up hints only shorten a wait: every decision is taken by these scripts.
-- No hint outlives the waiters: a released lock nobody waits for leaves
-- nothing behind (but {K}:fence, if a fencing token was asked for).
local MARK = '\0w'
local RESERVED = '\0q'

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
  return waiting
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

-- The wake-up hint of fair waiter `head`, unless one is pending already.
local function wake_head(priv, head, hb)
  local pk = priv .. head
  if redis.call('LLEN', pk) == 0 then
    redis.call('RPUSH', pk, '1')
    redis.call('PEXPIRE', pk, hb)
  end
end

-- The lock is free now (released, forced, or its holder's turn given up):
-- reserve it for the head of the fair queue and wake that one, or else
-- delete it and wake one waiter. Never more hints pending than there are
-- waiters, and they expire.
local function free(k, w, q, n, priv, hb, ms)
  purge(w, q, n, priv, ms)
  local head = redis.call('ZRANGE', q, 0, 0)[1]
  if head then
    redis.call('SET', k, RESERVED, 'PX', 2 * hb)
    wake_head(priv, head, hb)
    return
  end
  redis.call('DEL', k)
  local waiting = redis.call('ZCARD', w)
  if waiting > 0 and redis.call('LLEN', n) < waiting then
    redis.call('RPUSH', n, '1')
    redis.call('PEXPIRE', n, hb)
  end
end

-- Strictly increasing, even if the counter was lost (restart, expiry): never
-- below the server's clock in microseconds.
local function next_fence(fence, ttl)
  local us = now_us()
  local keep = math.max(86400000, 2 * ttl)
  local last = tonumber(redis.call('SET', fence, string.format('%.0f', us), 'PX', keep, 'GET') or '0') or 0
  if last >= us then
    us = last + 1
    redis.call('SET', fence, string.format('%.0f', us), 'PX', keep)
  end
  return us
end
