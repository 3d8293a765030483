-- job: ARGV[3] a job id. Where the job is, after putting lapsed claims back
-- as a pop would: { state ('scheduled', 'due', 'in_flight' or 'dead'), time
-- (ms: due, claim deadline or dead-lettered at; '' when not known), attempts
-- (false = 0), owner ('' unless in flight), payload }, or {} when there is no
-- such job. An in-flight job is found by a scan of the claims (the in-flight
-- set is as large as the jobs being handled right now); a job waiting in the
-- ready list by a binary search on ids (push order).
--!include _queue_common.lua
put_back_lapsed()
local id = ARGV[3]
local p = redis.call('HGET', PAYLOAD, id)
if not p then return {} end
local attempts = redis.call('HGET', ATTEMPTS, id)
local s = redis.call('ZSCORE', SCHED, id)
if s then
  local st = 'scheduled'
  if tonumber(s) <= NOW_MS then st = 'due' end
  return { st, s, attempts, '', p }
end
s = redis.call('ZSCORE', DEAD, id)
if s then return { 'dead', s, attempts, '', p } end
-- claimed: its in-flight member is "<id>|<owner>"
local head = id .. '|'
local pattern = string.gsub(id, '[%*%?%[%]\\]', '\\%0') .. '|*'
local cur = '0'
repeat
  local r = redis.call('ZSCAN', FLIGHT, cur, 'MATCH', pattern, 'COUNT', 1000)
  cur = r[1]
  local found = r[2]
  for i = 1, #found, 2 do
    if string.sub(found[i], 1, #head) == head then
      return { 'in_flight', found[i + 1], attempts, string.sub(found[i], #head + 1), p }
    end
  end
until cur == '0'
-- waiting in the ready list (due): look for its entry around where its id
-- falls, for its due time
local len = redis.call('LLEN', READY)
local first, last = 0, len
while first < last do
  local mid = math.floor((first + last) / 2)
  local rid = ready_entry_text(redis.call('LINDEX', READY, mid))
  if rid >= id then last = mid else first = mid + 1 end
end
local from = math.max(0, first - 64)
for _, e in ipairs(redis.call('LRANGE', READY, from, from + 128)) do
  local rid, due = ready_entry_text(e)
  if rid == id then return { 'due', due, attempts, '', p } end
end
return { 'due', '', attempts, '', p }
