-- pop: ARGV[3] max jobs to claim, ARGV[4] bookkeeping limit, ARGV[5] random seed.
-- 1. Bookkeeping, bounded: up to ARGV[4] in-flight jobs whose visibility
--    deadline has passed go back to the schedule (attempts + 1, exponential
--    backoff with jitter) or, out of attempts, to the dead set.
-- 2. Claims up to ARGV[3] due jobs, oldest due time first (equal due times in
--    push order), for the caller (ARGV[2]) until now + visibility timeout.
-- Returns { µs until the next job is due or the next claim expires (0: now,
-- -1: queue empty), id, payload, attempts, due ms, id, ... }.
--!include _queue_common.lua
local max, limit = int_arg(3), int_arg(4)
math.randomseed(int_arg(5))

local function backoff_ms(attempts)
  if BACKOFF <= 0 then return 0 end
  local d = BACKOFF * 2 ^ math.min(attempts - 1, 40)
  if d > MAX_BACKOFF_MS then d = MAX_BACKOFF_MS end
  -- "equal jitter": between half and all of the exponential delay
  return math.floor(d / 2 + math.random() * d / 2)
end

-- 1. expired claims
local expired = redis.call('ZRANGE', FLIGHT, '-inf', fmt(NOW_MS), 'BYSCORE', 'LIMIT', 0, limit)
for _, id in ipairs(expired) do
  redis.call('ZREM', FLIGHT, id)
  local m = meta_get(id)
  if not m then
    forget(id)
  else
    local a = m.attempts + 1
    if MAX_ATTEMPTS > 0 and a >= MAX_ATTEMPTS then
      redis.call('ZADD', DEAD, fmt(NOW_MS), id)
      set_meta(id, 'D', a, m.due, m.owner)
    else
      local due = NOW_MS + backoff_ms(a)
      redis.call('ZADD', SCHED, fmt(due), id)
      -- the owner stays: until someone else claims the job, its last
      -- consumer may still ack, retry or touch it
      set_meta(id, 'S', a, due, m.owner)
    end
  end
end

-- 2. claim
local out = { 0 }
local claimed = 0
local due = redis.call('ZRANGE', SCHED, '-inf', fmt(NOW_MS), 'BYSCORE', 'LIMIT', 0, max, 'WITHSCORES')
if #due > 0 then
  local ids = {}
  for i = 1, #due, 2 do ids[#ids + 1] = due[i] end
  redis.call('ZREM', SCHED, unpack(ids))
  local payloads = redis.call('HMGET', PAYLOAD, unpack(ids))
  local metas = redis.call('HMGET', META, unpack(ids))
  local deadline = fmt(NOW_MS + VT)
  local zadd, hset = {}, {}
  for j, id in ipairs(ids) do
    local m = meta_parse(metas[j])
    local p = payloads[j]
    if m and p then
      local d = tonumber(due[2 * j])
      zadd[#zadd + 1] = deadline
      zadd[#zadd + 1] = id
      hset[#hset + 1] = id
      hset[#hset + 1] = meta_str('F', m.attempts, d, OWNER)
      out[#out + 1] = id
      out[#out + 1] = p
      out[#out + 1] = m.attempts
      out[#out + 1] = d
      claimed = claimed + 1
    else
      forget(id) -- remnant of a job whose data was deleted by hand
    end
  end
  if claimed > 0 then
    redis.call('ZADD', FLIGHT, unpack(zadd))
    redis.call('HSET', META, unpack(hset))
  end
end

-- 3. when the next job is due (or the next claim expires)
local nxt = -1
local h = head_due()
if h then
  nxt = math.max(0, h * 1000 - NOW_US)
  -- more due jobs than we took: pass the wake-up on to another waiting consumer
  if h <= NOW_MS and claimed >= max and redis.call('LLEN', NOTIFY) == 0 then wake() end
end
local f = redis.call('ZRANGE', FLIGHT, 0, 0, 'WITHSCORES')
if f[2] then
  local d = math.max(0, tonumber(f[2]) * 1000 - NOW_US)
  if nxt < 0 or d < nxt then nxt = d end
end
out[1] = nxt
return out
