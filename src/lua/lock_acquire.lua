--!flags
-- One attempt to take the lock while waiting (lock_try.lua is the one-shot
-- attempt). Flagged: over maxmemory Redis refuses it before it runs, so an
-- attempt never writes half of its work (release, extend and leave are
-- allow-oom: they keep working over the limit, and free memory).
-- KEYS: lock, fence, waiters, queue, wake
-- ARGV: token, ttl ms, mode ('0' try once (Redlock) | '1' waiting | '2' waiting in the fair queue),
--       heartbeat ms, private wake-up key prefix, '1' to issue a fencing token now (Redlock)
-- Returns {1, fencing token or 0} or {0, holder's PTTL in ms (-1: none), 1 if we head the fair queue}.
--!include _lock_common.lua
local lock, fence, w, q, n = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local me, ttl, mode, hb, priv = ARGV[1], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4]), ARGV[5]

local ms = math.floor(now_us() / 1000)
local holder = redis.call('GET', lock)
local free = not holder or holder == RESERVED
local turn = free or holder == me or holder == me .. MARK
if free and (holder == RESERVED or redis.call('EXISTS', q) == 1) then
  -- Fair waiters are queued: the lock is the head's.
  purge(w, q, n, priv, ms)
  local head = redis.call('ZRANGE', q, 0, 0)[1]
  if head and head ~= me then
    turn = false
    if holder then
      -- reserved: make sure that head (maybe new, after a purge) knows
      wake_head(priv, head, hb)
    else
      free(lock, w, q, n, priv, hb, ms)
    end
  end
end
if turn then
  local waiting
  if mode ~= '0' then
    redis.call('ZREM', w, me)
    redis.call('ZREM', q, me)
    redis.call('DEL', priv .. me)
    -- we stop waiting: so does any hint that was pushed for us
    waiting = trim(w, n)
  else
    waiting = redis.call('ZCARD', w)
  end
  -- others still wait: the release must wake one
  if waiting > 0 then me = me .. MARK end
  redis.call('SET', lock, me, 'PX', ttl)
  if ARGV[6] == '1' then return {1, next_fence(fence, ttl)} end
  return {1, 0}
end
local head = 0
if mode ~= '0' then
  redis.call('ZADD', w, ms + hb, me)
  redis.call('PEXPIRE', w, 2 * hb)
  if holder and holder ~= RESERVED and string.sub(holder, -2) ~= MARK then
    -- the holder's release has to wake us: mark its lock (APPEND keeps the TTL)
    redis.call('APPEND', lock, MARK)
  end
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
