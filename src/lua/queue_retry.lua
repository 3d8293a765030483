-- retry: ARGV[3] job id, ARGV[4] delay in microseconds. Ends the caller's
-- claim and counts a failed attempt: the job is due again after the delay,
-- or goes to the dead set once it has used max_attempts. A claim whose
-- visibility timeout already counted the attempt (job back in the schedule
-- or dead set, not claimed by anyone since) is not counted twice.
-- Returns 1, 2 when the job went to the dead set, or 0 (not the caller's
-- claim: changed nothing).
--!include _queue_common.lua
local id = ARGV[3]
local delay_us = int_arg(4)
if OWNER == '' then return 0 end
local member = flight_member(id)
local deadline = redis.call('ZSCORE', FLIGHT, member)
if deadline then
  redis.call('ZREM', FLIGHT, member)
  local a = redis.call('HINCRBY', ATTEMPTS, id, 1)
  if MAX_ATTEMPTS > 0 and a >= MAX_ATTEMPTS then
    -- a claim that lapsed before this retry (no script noticed yet) used its
    -- last attempt at its deadline: dead as of then, as if noticed
    redis.call('ZADD', DEAD, fmt(math.min(tonumber(deadline), NOW_MS)), id)
    return 2
  end
elseif lapsed_claim_of_caller(id) then
  redis.call('HDEL', CLAIM, id)
  if redis.call('ZSCORE', DEAD, id) then
    return 1 -- timed out for the last time already: stays dead
  end
else
  return 0
end
local due = due_after(delay_us)
local w = needs_wake(due)
redis.call('ZADD', SCHED, fmt(due), id)
if w then wake_now() end
return 1
