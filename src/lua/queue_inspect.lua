-- inspect: what counts.lua returns (after putting lapsed claims back, as a
-- pop would), then the due ms of the oldest job that is due and not claimed
-- (-1: none; how far the consumers are behind), the next due ms after now
-- (-1: nothing scheduled later), the Redis clock in ms, and 1 if the queue
-- is paused (else 0).
--!include _queue_common.lua
put_back_lapsed()
local now = fmt(NOW_MS)
-- (the pause mark, if paused, is not a job)
local mark = redis.call('ZSCORE', SCHED, PAUSED) and 1 or 0
local total = redis.call('ZCARD', SCHED) - mark
local due = redis.call('ZCOUNT', SCHED, '-inf', now) - mark
local ready = redis.call('LLEN', READY)
-- the ready list holds only due jobs, and the schedule's first is the
-- earliest: their earlier is the oldest due job, if it is due
local oldest = head_due()
if not oldest or oldest > NOW_MS then oldest = -1 end
local nxt = redis.call('ZRANGE', SCHED, '(' .. now, '+inf', 'BYSCORE', 'LIMIT', 0, 1, 'WITHSCORES')
return { total - due, due + ready, redis.call('ZCARD', FLIGHT), redis.call('ZCARD', DEAD),
  fmt(oldest), nxt[2] or '-1', now, mark }
