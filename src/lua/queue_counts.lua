-- counts: { scheduled (not yet due), due, in flight, dead } by the Redis clock.
--!include _queue_common.lua
local total = redis.call('ZCARD', SCHED)
local due = redis.call('ZCOUNT', SCHED, '-inf', fmt(NOW_MS))
return { total - due, due, redis.call('ZCARD', FLIGHT), redis.call('ZCARD', DEAD) }
