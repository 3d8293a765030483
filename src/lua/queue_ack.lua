-- ack: ARGV[3] job id. Deletes the job if the caller (ARGV[2]) holds its
-- latest claim, whether or not the visibility timeout has passed since, as
-- long as no other consumer has claimed it. Returns 1, or 0 (changed nothing).
--!include _queue_common.lua
local id = ARGV[3]
local m = meta_get(id)
if not m or OWNER == '' or m.owner ~= OWNER then return 0 end
redis.call('ZREM', state_key(m.state), id)
forget(id)
return 1
