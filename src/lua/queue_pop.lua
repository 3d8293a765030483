-- pop: ARGV[3] max jobs to claim, ARGV[4] how long (ms) the caller will wait
-- when nothing is due ('0': it will not).
-- 1. Bookkeeping, bounded: lapsed claims go back (put_back_lapsed: due at
--    deadline + backoff, or dead as of the deadline).
-- 2. Claims up to ARGV[3] due jobs, oldest due time first (equal due times in
--    push order), for the caller (ARGV[2]) until now + visibility timeout:
--    in flight as "<id>|<owner>". Due ids whose payload is gone (deleted, or
--    evicted under an allkeys-* maxmemory-policy) are dropped on the way, at
--    most REMNANT_LIMIT per call, and do not take the caller's slots.
-- A paused queue (the schedule's first member is the pause mark) claims
-- nothing after step 1, and a waiting caller waits its whole wait, until
-- resume() wakes it.
-- Returns { µs until the next job is due or the next claim expires (0: now,
-- -1: nothing scheduled or in flight, or paused; only computed for a waiting
-- caller that got no job), jobs its bookkeeping dead-lettered, id, payload,
-- attempts (nil = 0), due ms, id, ... }.
--!include _queue_common.lua
local max = int_arg(3)
local wait_ms = int_arg(4)
local waiting = wait_ms > 0
local REMNANT_LIMIT = 1000

-- 1. lapsed claims
local _, died = put_back_lapsed()

-- 2. claim: fetch one more than asked, to learn whether more are due (and
-- more after remnants were met), then take the first k of the schedule and
-- the ready list together
local now_ms = fmt(NOW_MS)
local out = { 0, died }
local claimed, dropped = 0, 0
local more_due = false
local has_attempts, has_claims
-- rounded up: a claim never lapses before VT has passed (NOW_MS is rounded down)
local deadline = fmt(math.ceil(NOW_US / 1000) + VT)
local suffix = '|' .. OWNER
local fetch = max + 1
local paused = false
while true do
  -- the schedule's due jobs and the ready list's head, merged in (due
  -- time, id) order; a source whose fetched slice was full may hold more
  -- beyond it, so the merge stops where such a slice ends
  local due = redis.call('ZRANGE', SCHED, '-inf', now_ms, 'BYSCORE', 'LIMIT', 0, fetch, 'WITHSCORES')
  -- the pause mark sorts first of all: no extra call to know
  if due[1] == PAUSED then paused = true break end
  local ns = #due / 2
  local rdy, want
  if ns == 0 and dropped == 0 then
    -- the common case, nothing scheduled is due: the ready list's head is
    -- popped at once (jobs pushed without a delay never failed: no
    -- attempts or lapsed claims to look up)
    want = max - claimed
    rdy = redis.call('LPOP', READY, want) or {}
  else
    rdy = redis.call('LRANGE', READY, 0, fetch - 1)
  end
  local nr = #rdy
  if ns + nr == 0 then more_due = false break end
  if has_attempts == nil and ns > 0 then
    -- most jobs never failed: skip the lookups while no job has
    has_attempts = redis.call('HLEN', ATTEMPTS) > 0
    has_claims = redis.call('HLEN', CLAIM) > 0
  end
  local room = max - claimed + REMNANT_LIMIT - dropped
  local ids, dues, ready, i, j = {}, {}, {}, 1, 1
  local rid, rdue
  if want then
    -- all popped, in order: the due time stays text (no number round trip)
    for x = 1, nr do
      ids[x], dues[x] = ready_entry_text(rdy[x])
      ready[x] = true
    end
    j = nr + 1
  elseif nr > 0 then
    rid, rdue = ready_entry(rdy[1])
  end
  while not want and #ids < room do
    local s_ok, r_ok = i <= ns, j <= nr
    if not s_ok and not r_ok then break end
    local from_ready
    if not s_ok then
      if ns == fetch then break end
      from_ready = true
    elseif not r_ok then
      if nr == fetch then break end
      from_ready = false
    else
      local sd = tonumber(due[2 * i])
      from_ready = rdue < sd or (rdue == sd and rid < due[2 * i - 1])
    end
    if from_ready then
      ids[#ids + 1] = rid
      dues[#dues + 1] = fmt(rdue)
      ready[#ready + 1] = true
      j = j + 1
      if j <= nr then rid, rdue = ready_entry(rdy[j]) end
    else
      ids[#ids + 1] = due[2 * i - 1]
      dues[#dues + 1] = due[2 * i]
      ready[#ready + 1] = false
      i = i + 1
    end
  end
  local take = #ids
  local payloads = redis.call('HMGET', PAYLOAD, unpack(ids))
  local attempts = {}
  if has_attempts then attempts = redis.call('HMGET', ATTEMPTS, unpack(ids)) end
  local zadd, mine, k = {}, {}, 0
  for x = 1, take do
    if claimed == max or dropped == REMNANT_LIMIT then break end
    k = x
    local id, p = ids[x], payloads[x]
    if p then
      zadd[#zadd + 1] = deadline
      zadd[#zadd + 1] = id .. suffix
      mine[#mine + 1] = id
      out[#out + 1] = id
      out[#out + 1] = p
      out[#out + 1] = attempts[x] or false
      out[#out + 1] = dues[x]
      claimed = claimed + 1
    else
      forget(id) -- remnant of a job whose data was deleted (by hand, or evicted)
      dropped = dropped + 1
    end
  end
  -- the k looked at are the first ks of the schedule and kr of the ready list
  local ks, kr = 0, 0
  for x = 1, k do
    if ready[x] then kr = kr + 1 else ks = ks + 1 end
  end
  if ks > 0 then redis.call('ZREMRANGEBYRANK', SCHED, 0, ks - 1) end
  if kr > 0 and not want then redis.call('LTRIM', READY, kr, -1) end
  if #zadd > 0 then
    redis.call('ZADD', FLIGHT, unpack(zadd))
    -- a new claim ends the lapsed claims of earlier consumers
    if has_claims then redis.call('HDEL', CLAIM, unpack(mine)) end
  end
  -- (all fetched looked at: more may be due beyond them)
  if want then
    -- popped: every one was claimed or dropped; the list may hold more only
    -- if it gave all that was asked
    more_due = nr == want
    if claimed == max or nr < want then break end
  else
    more_due = ns > ks or ns == fetch or nr > kr or nr == fetch
    if claimed == max or dropped >= REMNANT_LIMIT or (ns < fetch and nr < fetch and k == ns + nr) then break end
  end
  -- remnants took slots: look further, a bigger slice at once
  fetch = math.min(max - claimed + 1 + dropped, max - claimed + REMNANT_LIMIT - dropped)
end

if waiting and more_due and redis.call('LLEN', NOTIFY) == 0 then wake() end

-- 3. for a caller about to wait: when the next job is due or claim expires
if waiting and claimed == 0 and paused then
  -- nothing to wake for but resume(): the caller waits its whole wait
  out[1] = -1
  will_wait(wait_ms)
elseif waiting and claimed == 0 then
  local nxt = -1
  local h = head_due()
  if h then nxt = math.max(0, h * 1000 - NOW_US) end
  local f = redis.call('ZRANGE', FLIGHT, 0, 0, 'WITHSCORES')
  if f[2] then
    local d = math.max(0, tonumber(f[2]) * 1000 - NOW_US)
    if nxt < 0 or d < nxt then nxt = d end
  end
  out[1] = nxt
  -- it blocks until a push wakes it, the next job is due, or its wait ends
  if nxt >= 0 and nxt / 1000 < wait_ms then wait_ms = math.ceil(nxt / 1000) end
  will_wait(wait_ms)
end
return out
