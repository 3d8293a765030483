-- inspect: what counts.lua returns (after putting lapsed claims back, as a
-- pop would), then the due ms of the oldest job that is due and not claimed
-- (-1: none; how far the consumers are behind), the next due ms after now
-- (-1: nothing scheduled later) and the Redis clock in ms.
--!include _queue_common.lua
put_back_lapsed()
local now = fmt(NOW_MS)
local total = redis.call('ZCARD', SCHED)
local due = redis.call('ZCOUNT', SCHED, '-inf', now)
local ready = redis.call('LLEN', READY)
-- the ready list holds only due jobs, and the schedule's first is the
-- earliest: their earlier is the oldest due job, if it is due
local oldest = head_due()
if not oldest or oldest > NOW_MS then oldest = -1 end
local nxt = redis.call('ZRANGE', SCHED, '(' .. now, '+inf', 'BYSCORE', 'LIMIT', 0, 1, 'WITHSCORES')
return { total - due, due + ready, redis.call('ZCARD', FLIGHT), redis.call('ZCARD', DEAD),
  fmt(oldest), nxt[2] or '-1', now }
