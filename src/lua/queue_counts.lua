-- counts: { scheduled (not yet due), due, in flight, dead } by the Redis clock,
-- after putting lapsed claims back as a pop would (so a job whose claim lapsed
-- and whose backoff is over counts as due, not in flight).
--!include _queue_common.lua
put_back_lapsed()
-- (the pause mark, if paused, is not a job)
local mark = redis.call('ZSCORE', SCHED, PAUSED) and 1 or 0
local total = redis.call('ZCARD', SCHED) - mark
local due = redis.call('ZCOUNT', SCHED, '-inf', fmt(NOW_MS)) - mark
local ready = redis.call('LLEN', READY)
return { total - due, due + ready, redis.call('ZCARD', FLIGHT), redis.call('ZCARD', DEAD) }
