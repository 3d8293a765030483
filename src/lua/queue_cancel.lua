-- cancel: ARGV[3] job id. Deletes a job that is not in flight (scheduled,
-- due, or dead). Returns 1, or 0 (unknown id, or claimed by a consumer now).
--!include _queue_common.lua
local id = ARGV[3]
local m = meta_get(id)
if not m or m.state == 'F' then return 0 end
redis.call('ZREM', state_key(m.state), id)
forget(id)
return 1
