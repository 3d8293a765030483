-- ack: ARGV[3] job id. Deletes the job if the caller (ARGV[2]) holds its
-- latest claim, whether or not the visibility timeout has passed since, as
-- long as no other consumer has claimed it. Returns 1, or 0 (changed nothing).
--!include _queue_common.lua
local id = ARGV[3]
if OWNER == '' then return 0 end
if redis.call('ZREM', FLIGHT, flight_member(id)) == 0 then
  if not lapsed_claim_of_caller(id) then return 0 end
  -- the claim expired and put the job back; nobody claimed it since
  if redis.call('ZREM', SCHED, id) == 0 then redis.call('ZREM', DEAD, id) end
end
forget(id)
return 1
