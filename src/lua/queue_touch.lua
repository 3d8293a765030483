-- touch: ARGV[3] job id. Moves the visibility deadline of the caller's claim
-- to now + visibility timeout. A claim whose deadline passed but that nobody
-- else took since (the job went back to the schedule or the dead set) is
-- taken back, and the attempt its timeout counted is undone.
-- Returns 1, or 0 (not the caller's claim: changed nothing).
--!include _queue_common.lua
local id = ARGV[3]
local m = meta_get(id)
if not m or OWNER == '' or m.owner ~= OWNER then return 0 end
local deadline = fmt(NOW_MS + VT)
if m.state ~= 'F' then
  redis.call('ZREM', state_key(m.state), id)
  set_meta(id, 'F', math.max(0, m.attempts - 1), m.due, OWNER)
end
redis.call('ZADD', FLIGHT, deadline, id)
return 1
