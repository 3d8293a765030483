-- replaySpool: jobs a process spooled locally while Redis could not be
-- reached, pushed with the ids it gave them. ARGV[3..] triples: id, due
-- time (unix ms), payload. KEYS[11]: the ids replayed before (a set kept a
-- week after the last replay), so that a replay which reached Redis but
-- could not empty its spool (a crash in between) pushes nothing twice, even
-- once the job was popped and acked. Returns how many jobs were added.
--!include _queue_common.lua
local SPOOLED = KEYS[11]
-- a consumer blocked in pop() is woken if the earliest job needs it (read
-- before anything is added)
local first_due
for i = 4, #ARGV - 1, 3 do
  local due = tonumber(ARGV[i])
  if not due or due ~= due then return redis.error_reply('ERR rediskit: bad spooled due time') end
  if not first_due or due < first_due then first_due = due end
end
local waits = first_due and needs_wake(first_due)
local added = 0
for i = 3, #ARGV - 2, 3 do
  local id, due, payload = ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2]
  if redis.call('SADD', SPOOLED, id) == 1 then
    -- due times keep their meaning: a job due at T is due at T (the
    -- schedule hands out past-due jobs first, in due order)
    redis.call('ZADD', SCHED, fmt(due), id)
    redis.call('HSET', PAYLOAD, id, payload)
    added = added + 1
  end
end
redis.call('PEXPIRE', SPOOLED, 7 * 86400 * 1000)
if waits and added > 0 then wake_now() end
return added
