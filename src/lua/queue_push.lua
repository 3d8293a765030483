-- push / pushAt / pushMany: ARGV[3] 'd' (ARGV[4] = delay in microseconds) or
-- 'a' (ARGV[4] = due time in unix milliseconds), ARGV[5..] payloads.
-- Every payload becomes a job of its own. Returns the new ids in order.
-- One call writes all its jobs or none: under maxmemory Redis can refuse
-- only a script's first write (here the id counter's INCRBY, before any job
-- is written); once a script has written, Redis lets it finish.
--!include _queue_common.lua
local n = #ARGV - 4
if n < 1 then return {} end
local due
if ARGV[3] == 'a' then due = int_arg(4) else due = due_after(int_arg(4)) end
local old_head = head_due()
local last = redis.call('INCRBY', SEQ, n)
local first = last - n
local ids = {}
local score = fmt(due)
-- ZADD/HSET in slices: unpack() is limited by Lua's stack
local SLICE = 1000
for from = 1, n, SLICE do
  local to = math.min(from + SLICE - 1, n)
  local zadd, pay = {}, {}
  for i = from, to do
    -- fixed width: Redis orders equal due times by id, which is push order
    local id = string.format('%016.0f', first + i)
    ids[i] = id
    zadd[#zadd + 1] = score
    zadd[#zadd + 1] = id
    pay[#pay + 1] = id
    pay[#pay + 1] = ARGV[4 + i]
  end
  redis.call('ZADD', SCHED, unpack(zadd))
  redis.call('HSET', PAYLOAD, unpack(pay))
end
wake_if_earlier(due, old_head)
return ids
