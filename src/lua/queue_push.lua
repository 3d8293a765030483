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
-- Jobs without a delay are appended to the ready list, the others added to
-- the schedule. A key of the wrong type fails the push with nothing written:
-- the writes after the id counter's are checked and undone on error (cheaper
-- than a read of every key first).
--!include _queue_common.lua
local n = #ARGV - 5
if n < 1 then return {} end
local due
if ARGV[3] == 'a' then due = int_arg(4) else due = due_after(int_arg(4)) end
local ready = ARGV[3] == 'd' and int_arg(4) <= 0
-- wake-up bookkeeping only when a consumer may be blocked in pop() (for a
-- later job: only if it is due before the job that consumer sleeps until)
local waits
if ready then waits = someone_waits() else waits = needs_wake(due) end
local base, made
if ARGV[5] == '' then
  base, made = alloc_ids(n)
else
  base = int_arg(5)
  redis.call('HDEL', PAYLOAD, string.format('%016.0f', base + 1))
end
-- a write refused for a key's type (only the first slice can be): undo
-- what this push wrote before it, and fail
local function undo(err, added)
  if added then
    if ready then redis.call('LTRIM', READY, 0, -added - 1) else redis.call('ZREM', SCHED, unpack(added)) end
  end
  if ARGV[5] == '' then
    if made then redis.call('DEL', SEQ) else redis.call('INCRBY', SEQ, -n) end
  end
  return err
end
local ids = {}
local score = fmt(due)
-- RPUSH/ZADD/HSET in slices: unpack() is limited by Lua's stack
local SLICE = 1000
for from = 1, n, SLICE do
  local to = math.min(from + SLICE - 1, n)
  local add, pay = {}, {}
  for i = from, to do
    -- fixed width: Redis orders equal due times by id, which is push order
    local id = string.format('%016.0f', base + i)
    ids[i] = id
    if ready then
      add[#add + 1] = id .. ':' .. score
    else
      add[#add + 1] = score
      add[#add + 1] = id
    end
    pay[#pay + 1] = id
    pay[#pay + 1] = ARGV[5 + i]
  end
  local r
  if ready then r = redis.pcall('RPUSH', READY, unpack(add)) else r = redis.pcall('ZADD', SCHED, unpack(add)) end
  if type(r) == 'table' and r.err then return undo(r) end
  r = redis.pcall('HSET', PAYLOAD, unpack(pay))
  if type(r) == 'table' and r.err then
    if ready then return undo(r, #add) end
    local added = {}
    for i = 2, #add, 2 do added[#added + 1] = add[i] end
    return undo(r, added)
  end
end
if waits then wake_now() end
return ids
