-- push / pushAt / pushMany: ARGV[3] 'd' (ARGV[4] = delay in microseconds) or
-- 'a' (ARGV[4] = due time in unix milliseconds), ARGV[5..] payloads.
-- Every payload becomes a job of its own. Returns the new ids in order.
--!include _queue_common.lua
local n = #ARGV - 4
if n < 1 then return {} end
local due
if ARGV[3] == 'a' then due = int_arg(4) else due = due_after(int_arg(4)) end
local old_head = head_due()
local last = redis.call('INCRBY', SEQ, n)
local ids, zadd, pay = {}, {}, {}
local score = fmt(due)
for i = 1, n do
  -- fixed width: Redis orders equal due times by id, which is push order
  local id = string.format('%016.0f', last - n + i)
  ids[i] = id
  zadd[2 * i - 1] = score
  zadd[2 * i] = id
  pay[2 * i - 1] = id
  pay[2 * i] = ARGV[4 + i]
end
redis.call('ZADD', SCHED, unpack(zadd))
redis.call('HSET', PAYLOAD, unpack(pay))
wake_if_earlier(due, old_head)
return ids
