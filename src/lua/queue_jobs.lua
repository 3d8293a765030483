-- jobs: one page of the jobs in one state, in the order they leave it.
-- ARGV[3] state: 'scheduled' (due later, by due time), 'due' (due and not
-- claimed, by due time), 'in_flight' (claimed, by claim deadline) or 'dead'
-- (by when they were dead-lettered); ARGV[4] cursor: '' for the first page,
-- else '<ms>:<member>' of the last entry of the page before; ARGV[5] jobs per
-- page; ARGV[6] payload bytes to return per job. After putting lapsed claims
-- back as a pop would.
-- Returns { next cursor ('' = last page), then per job: id, time (ms: due,
-- claim deadline or dead-lettered at), attempts (false = 0), owner ('' unless
-- in flight), payload size, payload's first ARGV[6] bytes }. Entries whose
-- payload is gone (deleted by hand, or evicted) are passed over, so a page
-- may hold fewer jobs than asked and still have a next one.
--!include _queue_common.lua
put_back_lapsed()
local state, limit, preview = ARGV[3], int_arg(5), int_arg(6)
local cs, cm
if ARGV[4] ~= '' then
  local c = string.find(ARGV[4], ':', 1, true)
  cs = c and tonumber(string.sub(ARGV[4], 1, c - 1))
  if not cs then return redis.error_reply('ERR rediskit: bad cursor') end
  cm = string.sub(ARGV[4], c + 1)
end

local function bound(x)
  if x == math.huge then return '+inf' elseif x == -math.huge then return '-inf' end
  return fmt(x)
end

-- whether (s, m) comes after the cursor
local function after(s, m)
  return not cs or s > cs or (s == cs and m > cm)
end

-- up to n entries { member, score } of a sorted set with lo <= score <= hi,
-- after the cursor: from the cursor's rank while its member is still there
-- with the same score, else from its score, passing over the ties up to its
-- member
local function zpage(key, lo, hi, n)
  local out = {}
  local at = cs and cs >= lo and redis.call('ZSCORE', key, cm)
  if at and tonumber(at) == cs then
    local start = redis.call('ZRANK', key, cm) + 1
    local r = redis.call('ZRANGE', key, start, start + n - 1, 'WITHSCORES')
    for i = 1, #r, 2 do
      local s = tonumber(r[i + 1])
      if s > hi then break end
      if r[i] ~= PAUSED then out[#out + 1] = { r[i], s } end
    end
    return out
  end
  local min = lo
  if cs and cs > lo then min = cs end
  local chunk, off = n + 100, 0
  while #out < n do
    local r = redis.call('ZRANGE', key, bound(min), bound(hi), 'BYSCORE', 'LIMIT', off, chunk, 'WITHSCORES')
    for i = 1, #r, 2 do
      local s = tonumber(r[i + 1])
      if r[i] ~= PAUSED and after(s, r[i]) then
        out[#out + 1] = { r[i], s }
        if #out == n then break end
      end
    end
    if #r < 2 * chunk then break end
    off = off + chunk
  end
  return out
end

-- up to n entries { id, due } of the ready list after the cursor. The list
-- is in push order, which is (due time, id) order except for the slices of
-- a batch that another push overtook: those may be listed a little out of
-- order.
local function rpage(n)
  local len = redis.call('LLEN', READY)
  local first, last = 0, len
  if cs then
    while first < last do
      local mid = math.floor((first + last) / 2)
      local id, due = ready_entry(redis.call('LINDEX', READY, mid))
      if after(due, id) then last = mid else first = mid + 1 end
    end
  end
  local out = {}
  if first >= len then return out end
  for _, e in ipairs(redis.call('LRANGE', READY, first, first + n - 1)) do
    local id, due = ready_entry(e)
    if after(due, id) then out[#out + 1] = { id, due } end
  end
  return out
end

local n = limit + 1
local entries
if state == 'scheduled' then
  entries = zpage(SCHED, NOW_MS + 1, math.huge, n)
elseif state == 'dead' then
  entries = zpage(DEAD, -math.huge, math.huge, n)
elseif state == 'in_flight' then
  entries = zpage(FLIGHT, -math.huge, math.huge, n)
elseif state == 'due' then
  -- the schedule's due jobs and the ready list, merged in (due time, id) order
  local a, b = zpage(SCHED, -math.huge, NOW_MS, n), rpage(n)
  entries = {}
  local i, j = 1, 1
  while #entries < n and (i <= #a or j <= #b) do
    local x, y = a[i], b[j]
    if y and (not x or y[2] < x[2] or (y[2] == x[2] and y[1] < x[1])) then
      entries[#entries + 1] = y
      j = j + 1
    else
      entries[#entries + 1] = x
      i = i + 1
    end
  end
else
  return redis.error_reply('ERR rediskit: bad state')
end

local out = { '' }
if #entries > limit then
  local e = entries[limit]
  out[1] = fmt(e[2]) .. ':' .. e[1]
end
for k = 1, math.min(limit, #entries) do
  local member, at = entries[k][1], entries[k][2]
  local id, owner = member, ''
  if state == 'in_flight' then
    local bar = string.find(member, '|', 1, true)
    if bar then id, owner = string.sub(member, 1, bar - 1), string.sub(member, bar + 1) end
  end
  local size = redis.call('HSTRLEN', PAYLOAD, id)
  if size > 0 or redis.call('HEXISTS', PAYLOAD, id) == 1 then
    local p = ''
    if preview > 0 and size > 0 then p = string.sub(redis.call('HGET', PAYLOAD, id), 1, preview) end
    out[#out + 1] = id
    out[#out + 1] = fmt(at)
    out[#out + 1] = redis.call('HGET', ATTEMPTS, id)
    out[#out + 1] = owner
    out[#out + 1] = size
    out[#out + 1] = p
  end
end
return out
