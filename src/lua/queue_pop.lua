-- pop: ARGV[3] max jobs to claim, ARGV[4] '1' if the caller will wait when
-- nothing is due.
-- 1. Bookkeeping, bounded: lapsed claims go back (put_back_lapsed: due at
--    deadline + backoff, or dead as of the deadline).
-- 2. Claims up to ARGV[3] due jobs, oldest due time first (equal due times in
--    push order), for the caller (ARGV[2]) until now + visibility timeout:
--    in flight as "<id>|<owner>".
-- Returns { µs until the next job is due or the next claim expires (0: now,
-- -1: nothing scheduled or in flight; only computed for a waiting caller that
-- got no job), id, payload, attempts (nil = 0), due ms, id, ... }.
--!include _queue_common.lua
local max = int_arg(3)
local waiting = ARGV[4] == '1'

-- 1. lapsed claims
put_back_lapsed()

-- 2. claim (one more than asked, to learn whether more are due)
local now_ms = fmt(NOW_MS)
local out = { 0 }
local claimed = 0
local due = redis.call('ZRANGE', SCHED, '-inf', now_ms, 'BYSCORE', 'LIMIT', 0, max + 1, 'WITHSCORES')
local n = math.min(#due / 2, max)
if n > 0 then
  local ids = {}
  for i = 1, n do ids[i] = due[2 * i - 1] end
  -- the due jobs are the first n of the schedule
  redis.call('ZREMRANGEBYRANK', SCHED, 0, n - 1)
  local payloads = redis.call('HMGET', PAYLOAD, unpack(ids))
  -- most jobs never failed: skip the lookup while no job has
  local attempts = {}
  if redis.call('HLEN', ATTEMPTS) > 0 then attempts = redis.call('HMGET', ATTEMPTS, unpack(ids)) end
  local deadline = fmt(NOW_MS + VT)
  local suffix = '|' .. OWNER
  local zadd = {}
  for j = 1, n do
    local id, p = ids[j], payloads[j]
    if p then
      local d = due[2 * j]
      zadd[#zadd + 1] = deadline
      zadd[#zadd + 1] = id .. suffix
      out[#out + 1] = id
      out[#out + 1] = p
      out[#out + 1] = attempts[j] or false
      out[#out + 1] = d
      claimed = claimed + 1
    else
      forget(id) -- remnant of a job whose data was deleted by hand
    end
  end
  if claimed > 0 then
    redis.call('ZADD', FLIGHT, unpack(zadd))
    -- a new claim ends the lapsed claims of earlier consumers
    if redis.call('HLEN', CLAIM) > 0 then redis.call('HDEL', CLAIM, unpack(ids)) end
  end
end

-- a waiting consumer (woken by a push, maybe) left due jobs behind: pass the
-- wake-up on to the next waiting consumer
if waiting and #due / 2 > max and redis.call('LLEN', NOTIFY) == 0 then wake() end

-- 3. for a caller about to wait: when the next job is due or claim expires
if waiting and claimed == 0 then
  local nxt = -1
  local h = head_due()
  if h then nxt = math.max(0, h * 1000 - NOW_US) end
  local f = redis.call('ZRANGE', FLIGHT, 0, 0, 'WITHSCORES')
  if f[2] then
    local d = math.max(0, tonumber(f[2]) * 1000 - NOW_US)
    if nxt < 0 or d < nxt then nxt = d end
  end
  out[1] = nxt
end
return out
