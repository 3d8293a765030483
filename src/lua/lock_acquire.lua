-- One attempt to take the lock while waiting (lock_try.lua is the one-shot attempt).
-- KEYS: lock, fence, waiters, queue, wake
-- ARGV: token, ttl ms, mode ('0' try once (Redlock) | '1' waiting | '2' waiting in the fair queue),
--       heartbeat ms, private wake-up key prefix
-- Returns {1, fencing token} or {0, holder's PTTL in ms (-1: none), 1 if we head the fair queue}.
--!include _lock_common.lua
local lock, fence, w, q, n = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local me, ttl, mode, hb, priv = ARGV[1], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4]), ARGV[5]

-- Strictly increasing, even if the counter was lost (restart, expiry): never
-- below the server's clock in microseconds.
local function next_fence(us)
  local keep = math.max(86400000, 2 * ttl)
  local last = tonumber(redis.call('SET', fence, string.format('%.0f', us), 'PX', keep, 'GET') or '0') or 0
  if last >= us then
    us = last + 1
    redis.call('SET', fence, string.format('%.0f', us), 'PX', keep)
  end
  return us
end

-- Memory: over maxmemory (noeviction) Redis refuses a write that may grow
-- memory (a denyoom command) only while the script has written nothing yet,
-- since it cannot stop one half-way; after any write, even growing ones pass.
-- The first write below may be a ZREM or a purge of dead waiters (not
-- denyoom), which would let the lock and its fencing token be written over
-- the limit. So the first write is this SETRANGE of nothing: denyoom, but it
-- changes nothing (nor is replicated). Over the limit the attempt fails right
-- here with Redis's OOM error, before anything is written; otherwise nothing
-- later in the script can fail for memory. (lock_try.lua's first write is its
-- SET: the same by itself. Release, extend and leave start with DEL, PEXPIRE,
-- ZREM: they keep working over the limit, and free memory.)
redis.call('SETRANGE', fence, 0, '')

local us = now_us()
local ms = math.floor(us / 1000)
local holder = redis.call('GET', lock)
local turn = holder == me or not holder
if turn and holder ~= me and redis.call('EXISTS', q) == 1 then
  -- Fair waiters are queued: the lock is the head's.
  purge(w, q, n, priv, ms)
  local head = redis.call('ZRANGE', q, 0, 0)[1]
  if head and head ~= me then
    turn = false
    wake(w, q, n, priv, hb, ms)
  end
end
if turn then
  if mode ~= '0' then
    local left = redis.call('ZREM', w, me)
    redis.call('ZREM', q, me)
    redis.call('DEL', priv .. me)
    -- we stop waiting: so does any hint that was pushed for us
    if left == 1 then trim(w, n) end
  end
  redis.call('SET', lock, me, 'PX', ttl)
  return {1, next_fence(us)}
end
local head = 0
if mode ~= '0' then
  redis.call('ZADD', w, ms + hb, me)
  redis.call('PEXPIRE', w, 2 * hb)
  if mode == '2' then
    if not redis.call('ZSCORE', q, me) then
      local last = redis.call('ZRANGE', q, -1, -1, 'WITHSCORES')
      redis.call('ZADD', q, (tonumber(last[2]) or 0) + 1, me)
    end
    redis.call('PEXPIRE', q, 2 * hb)
    if redis.call('ZRANGE', q, 0, 0)[1] == me then head = 1 end
  end
end
local pttl = -1
if holder then pttl = redis.call('PTTL', lock) end
return {0, pttl, head}
