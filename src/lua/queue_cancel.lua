-- cancel: ARGV[3] job id. Deletes a job that is not in flight (scheduled,
-- due, or dead), after putting lapsed claims back as a pop would (a job whose
-- claim lapsed is not in flight any more). Returns 1, or 0 (unknown id, or
-- claimed by a consumer now).
--!include _queue_common.lua
local id = ARGV[3]
if id == PAUSED then return 0 end -- the pause mark is not a job
put_back_lapsed()
if redis.call('ZREM', SCHED, id) == 1 or redis.call('ZREM', DEAD, id) == 1 then
  forget(id)
  return 1
end
-- pushed without a delay and not claimed yet: in the ready list, whose
-- entries carry the due time after the id (a scan, as LREM's own; nothing
-- to look for when the job's data is gone: acked, or never there)
if redis.call('HEXISTS', PAYLOAD, id) == 0 then return 0 end
local prefix = id .. ':'
local CHUNK = 1000
local from = 0
while true do
  local part = redis.call('LRANGE', READY, from, from + CHUNK - 1)
  for _, e in ipairs(part) do
    if string.sub(e, 1, #prefix) == prefix then
      redis.call('LREM', READY, 1, e)
      forget(id)
      return 1
    end
  end
  if #part < CHUNK then return 0 end
  from = from + CHUNK
end
