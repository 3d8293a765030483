-- push / pushAt / pushMany: ARGV[3] 'd' (ARGV[4] = delay in microseconds) or
-- 'a' (ARGV[4] = due time in unix milliseconds), ARGV[5] '' (take new ids) or
-- the base of ids queue_reserve took for a batch of several slices,
-- ARGV[6..] payloads. Every payload becomes a job of its own. Returns the new
-- ids in order.
-- Under maxmemory (noeviction) a push is refused whole or written whole:
-- - taking its own ids, its first write is alloc_ids (refused there, before
--   any job is written);
-- - a slice of a batch that queue_reserve admitted starts with a removal
--   that removes nothing (HDEL is never refused), so every slice of an
--   admitted batch is written even once memory is past maxmemory, as Redis
--   lets one script finish once it has written.
--!include _queue_common.lua
local n = #ARGV - 5
if n < 1 then return {} end
local due
if ARGV[3] == 'a' then due = int_arg(4) else due = due_after(int_arg(4)) end
-- wake-up bookkeeping only when a consumer may be blocked in pop(): a
-- consumer sleeps until the head is due, so it needs a wake-up only for jobs
-- due now or earlier than the head
local waits = someone_waits()
-- (read before the first write: a schedule key of another type fails the
-- push here, before the id counter moves)
local old_head = head_due()
local base
if ARGV[5] == '' then
  base = alloc_ids(n)
else
  base = int_arg(5)
  redis.call('HDEL', PAYLOAD, string.format('%016.0f', base + 1))
end
local ids = {}
local score = fmt(due)
-- ZADD/HSET in slices: unpack() is limited by Lua's stack
local SLICE = 1000
for from = 1, n, SLICE do
  local to = math.min(from + SLICE - 1, n)
  local zadd, pay = {}, {}
  for i = from, to do
    -- fixed width: Redis orders equal due times by id, which is push order
    local id = string.format('%016.0f', base + i)
    ids[i] = id
    zadd[#zadd + 1] = score
    zadd[#zadd + 1] = id
    pay[#pay + 1] = id
    pay[#pay + 1] = ARGV[5 + i]
  end
  redis.call('ZADD', SCHED, unpack(zadd))
  redis.call('HSET', PAYLOAD, unpack(pay))
end
if waits and (due <= NOW_MS or not old_head or due < old_head) then wake_now() end
return ids
