-- Shared by the queue_*.lua scripts (inlined at build time).
-- KEYS[1] schedule zset (id -> due ms), the queue's main key
-- KEYS[2] in-flight zset ("<id>|<owner>" -> visibility deadline ms)
-- KEYS[3] dead zset (id -> dead-lettered at ms)
-- KEYS[4] payload hash (id -> payload)
-- KEYS[5] attempts hash (id -> failed deliveries; absent = 0)
-- KEYS[6] lapsed claims (id -> owner): the consumer whose claim expired and
--         put the job back, while no one else has claimed it since
-- KEYS[7] id sequence (INCR)
-- KEYS[8] wake-up list (tokens for consumers blocked in pop with a wait)
-- KEYS[9] "someone may be waiting": set by a pop about to block, for as long
--         as it may block; writers push wake-up tokens only while it exists
-- KEYS[10] ready list: jobs pushed due now ("<id>:<due ms>", push order). A
--          push without a delay appends here (RPUSH: far cheaper for Redis
--          than a sorted-set insert); pop merges it with the schedule's due
--          jobs in (due time, id) order. Everything else (delays, retries,
--          lapsed claims, requeued dead jobs) goes to the schedule.
--          The schedule's member '' (score -inf, first of all) is not a job:
--          it marks a paused queue (queue_pause.lua), and every script that
--          reads the schedule's head or counts it knows it.
-- ARGV[1] config "visibility_ms;max_attempts;backoff_ms"
-- ARGV[2] the caller's consumer identity ('' when it does not matter)
local SCHED, FLIGHT, DEAD, PAYLOAD, ATTEMPTS, CLAIM, SEQ, NOTIFY, WAITING, READY =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10]
local VT, MAX_ATTEMPTS, BACKOFF = string.match(ARGV[1], '^(%d+);(%d+);(%d+)$')
if not VT then return redis.error_reply('ERR rediskit: bad queue config') end
VT, MAX_ATTEMPTS, BACKOFF = tonumber(VT), tonumber(MAX_ATTEMPTS), tonumber(BACKOFF)
local OWNER = ARGV[2]
-- the schedule's pause mark (never a job id: ids are not empty)
local PAUSED = ''

-- Wake-up tokens are hints: at most NOTIFY_CAP wait in the list, and the list
-- expires NOTIFY_TTL_MS after the last one was pushed.
local NOTIFY_CAP = 16
local NOTIFY_TTL_MS = 10000

-- Redis clock, microseconds and whole milliseconds (exact: < 2^53).
local t = redis.call('TIME')
local NOW_US = tonumber(t[1]) * 1000000 + tonumber(t[2])
local NOW_MS = math.floor(NOW_US / 1000)

local function int_arg(i)
  local v = tonumber(ARGV[i])
  if not v or v ~= v or v < 0 or v ~= math.floor(v) then error('rediskit: bad integer argument ' .. i) end
  return v
end

-- integers as exact decimal text (Lua would print 1.7e+12)
local function fmt(n)
  return string.format('%.0f', n)
end

-- due ms of a job scheduled delay_us from now: never before now + delay
-- (rounded up to the millisecond), and due now when there is no delay.
local function due_after(delay_us)
  if delay_us <= 0 then return NOW_MS end
  return math.ceil((NOW_US + delay_us) / 1000)
end

-- A ready-list entry ("<id>:<due ms>", or "<id>" for due at 0): its id and
-- due ms as stored (text, no number round trip).
local function ready_entry_text(e)
  local c = string.find(e, ':', 1, true)
  if not c then return e, '0' end
  return string.sub(e, 1, c - 1), string.sub(e, c + 1)
end

-- A ready-list entry's id and due ms (a number).
local function ready_entry(e)
  local id, due = ready_entry_text(e)
  return id, tonumber(due) or 0
end

-- Due ms of the first job (scheduled or ready), or nil; the pause mark is
-- not a job.
local function head_due()
  local r = redis.call('LINDEX', READY, 0)
  local h = redis.call('ZRANGE', SCHED, 0, 1, 'WITHSCORES')
  local d
  if h[1] == PAUSED then d = h[4] and tonumber(h[4]) else d = h[2] and tonumber(h[2]) end
  if r then
    local _, rd = ready_entry(r)
    if not d or rd < d then d = rd end
  end
  return d
end

-- A wake-up token for a consumer blocked in pop(), if one may be.
local function wake_now()
  if redis.call('LLEN', NOTIFY) < NOTIFY_CAP then
    redis.call('LPUSH', NOTIFY, '1')
  end
  redis.call('PEXPIRE', NOTIFY, NOTIFY_TTL_MS)
end

local function someone_waits()
  return redis.call('EXISTS', WAITING) == 1
end

local function wake()
  if someone_waits() then wake_now() end
end

-- Call before scheduling jobs due at due_ms: whether a consumer blocked in
-- pop() must be woken for them. It sleeps until the head is due, so it needs
-- a wake-up only if the new jobs are due now or earlier than the head.
-- (Reads the head only when someone waits.)
local function needs_wake(due_ms)
  if not someone_waits() then return false end
  if due_ms <= NOW_MS then return true end
  local old_head = head_due()
  return not old_head or due_ms < old_head
end

-- A pop about to block for up to ms: pushes wake it from now on. The
-- flag lasts as long as the longest wait announced (one second more).
local function will_wait(ms)
  ms = ms + 1000
  if not redis.call('SET', WAITING, '1', 'NX', 'PX', ms) then
    redis.call('PEXPIRE', WAITING, ms, 'GT')
  end
end

-- The in-flight member of the caller's claim on a job.
local function flight_member(id)
  return id .. '|' .. OWNER
end

-- The caller's claim expired and put the job back (schedule or dead set),
-- and no one has claimed it since.
local function lapsed_claim_of_caller(id)
  return OWNER ~= '' and redis.call('HGET', CLAIM, id) == OWNER
end

local function forget(id)
  redis.call('HDEL', PAYLOAD, id)
  redis.call('HDEL', ATTEMPTS, id)
  redis.call('HDEL', CLAIM, id)
end

-- Takes n new job ids: returns base, the ids being base+1 .. base+n (and
-- true if it had to make the counter). A push's
-- first write: under maxmemory, Redis refuses a script only at its first
-- write (and lets it finish once it has written), so a refused push has
-- written nothing, not even the counter.
local function alloc_ids(n)
  local last = redis.call('INCRBY', SEQ, n)
  if last > n then
    return last - n, false
  end
  -- There was no counter (INCRBY just made it, at n): a new queue, or one
  -- whose counter was evicted (an allkeys-* maxmemory-policy, which may take
  -- every other key of the queue with it) or deleted by hand. Counting from 1 could hand out ids that jobs or
  -- claims still carry: start from the Redis clock in microseconds instead,
  -- above every id handed out before unless more jobs were pushed than
  -- microseconds passed since. Still 16 digits until the year 2286.
  redis.call('SET', SEQ, fmt(NOW_US + n))
  return NOW_US, true
end

-- The dead jobs an operator call names: ARGV[3] 'ids' (ARGV[4..] = job ids)
-- or 'all' (ARGV[4] = at most this many, oldest dead first).
local function dead_ids_arg()
  if ARGV[3] == 'ids' then
    local ids = {}
    for i = 4, #ARGV do ids[#ids + 1] = ARGV[i] end
    return ids
  end
  return redis.call('ZRANGE', DEAD, 0, int_arg(4) - 1)
end

-- Most lapsed claims one script puts back (bounded work: a mass expiry is
-- worked off this many per call).
local LAPSED_LIMIT = 100
local MAX_BACKOFF_MS = 86400000 -- one day

-- Backoff (ms) after the a-th failed delivery: exponential, at most a day,
-- with "equal jitter" (between half and all of it). The jitter is a hash of
-- id and attempt, so every script that puts a lapsed claim back picks the
-- same delay, and jobs that lapsed together still spread out.
local function backoff_ms(id, a)
  if BACKOFF <= 0 then return 0 end
  local d = BACKOFF * 2 ^ math.min(a - 1, 40)
  if d > MAX_BACKOFF_MS then d = MAX_BACKOFF_MS end
  local frac = tonumber(string.sub(redis.sha1hex(id .. '|' .. a), 1, 8), 16) / 4294967296
  return math.floor(d / 2 + frac * d / 2)
end

-- Up to LAPSED_LIMIT claims whose visibility deadline has passed (earliest
-- deadline first) go back: attempts + 1, then due at deadline + backoff, or,
-- out of attempts, dead-lettered as of the deadline. Everything counts from
-- the moment the claim lapsed, not from the call that notices it, so a job
-- whose backoff is over by then is due at once. Every script that looks at
-- job states calls this first, so they all see the same queue. Until someone
-- else claims the job, its last consumer may still ack, retry or touch it.
-- Its first write removes (not an OOM-checked command): under maxmemory a
-- script that calls it is never refused half-way.
-- Returns how many claims went back, and how many of those jobs died.
local function put_back_lapsed()
  local expired = redis.call('ZRANGE', FLIGHT, '-inf', fmt(NOW_MS), 'BYSCORE', 'LIMIT', 0, LAPSED_LIMIT, 'WITHSCORES')
  local n = #expired / 2
  if n == 0 then return 0, 0 end
  -- a key of the wrong type (another object's, under this name) fails the
  -- script before its first write, not half-way
  local want = { PAYLOAD, 'hash', ATTEMPTS, 'hash', SCHED, 'zset', DEAD, 'zset', CLAIM, 'hash', READY, 'list' }
  for i = 1, #want, 2 do
    local ty = redis.call('TYPE', want[i]).ok
    if ty ~= 'none' and ty ~= want[i + 1] then
      error({ err = 'WRONGTYPE Operation against a key holding the wrong kind of value' })
    end
  end
  local members = {}
  for i = 1, n do members[i] = expired[2 * i - 1] end
  redis.call('ZREM', FLIGHT, unpack(members))
  local sched, dead, claims = {}, {}, {}
  for i = 1, n do
    local member, deadline = members[i], tonumber(expired[2 * i])
    local bar = string.find(member, '|', 1, true)
    if bar then
      local id, owner = string.sub(member, 1, bar - 1), string.sub(member, bar + 1)
      if redis.call('HEXISTS', PAYLOAD, id) == 0 then
        forget(id) -- remnant of a job whose data was deleted (by hand, or evicted)
      else
        local a = redis.call('HINCRBY', ATTEMPTS, id, 1)
        if MAX_ATTEMPTS > 0 and a >= MAX_ATTEMPTS then
          dead[#dead + 1] = fmt(deadline)
          dead[#dead + 1] = id
        else
          sched[#sched + 1] = fmt(deadline + backoff_ms(id, a))
          sched[#sched + 1] = id
        end
        claims[#claims + 1] = id
        claims[#claims + 1] = owner
      end
    end
  end
  if #sched > 0 then redis.call('ZADD', SCHED, unpack(sched)) end
  if #dead > 0 then redis.call('ZADD', DEAD, unpack(dead)) end
  if #claims > 0 then redis.call('HSET', CLAIM, unpack(claims)) end
  return n, #dead / 2
end
