-- touch: ARGV[3] job id. Moves the visibility deadline of the caller's claim
-- to now + visibility timeout. A claim whose deadline passed but that nobody
-- else took since (the job went back to the schedule or the dead set) is
-- taken back, and the attempt its timeout counted is undone.
-- Returns 1, or 0 (not the caller's claim: changed nothing).
--!include _queue_common.lua
local id = ARGV[3]
if OWNER == '' then return 0 end
local member = flight_member(id)
-- rounded up: a claim never lapses before VT has passed (NOW_MS is rounded down)
local deadline = fmt(math.ceil(NOW_US / 1000) + VT)
-- remove, then add: under maxmemory (noeviction) a script's first write
-- decides whether Redis refuses it; ZREM is never refused, so moving a
-- deadline (no memory gained) still works when Redis is out of memory
if redis.call('ZREM', FLIGHT, member) == 1 then
  redis.call('ZADD', FLIGHT, deadline, member)
  return 1
end
if not lapsed_claim_of_caller(id) then return 0 end
if redis.call('ZREM', SCHED, id) == 0 then redis.call('ZREM', DEAD, id) end
if redis.call('HINCRBY', ATTEMPTS, id, -1) <= 0 then redis.call('HDEL', ATTEMPTS, id) end
redis.call('HDEL', CLAIM, id)
redis.call('ZADD', FLIGHT, deadline, member)
return 1
