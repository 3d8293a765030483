-- cancel: ARGV[3] job id. Deletes a job that is not in flight (scheduled,
-- due, or dead), after putting lapsed claims back as a pop would (a job whose
-- claim lapsed is not in flight any more). Returns 1, or 0 (unknown id, or
-- claimed by a consumer now).
--!include _queue_common.lua
local id = ARGV[3]
put_back_lapsed()
if redis.call('ZREM', SCHED, id) == 0 and redis.call('ZREM', DEAD, id) == 0 then return 0 end
forget(id)
return 1
