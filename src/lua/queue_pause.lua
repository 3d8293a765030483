-- pause / resume: ARGV[3] '1' pauses (the schedule gets the pause mark: a
-- pop claims nothing, pushes are taken as ever), '0' resumes (the mark goes,
-- and a consumer blocked in pop() is woken; it wakes the next one if more
-- jobs are due). Returns 1 if the state changed, else 0.
--!include _queue_common.lua
if ARGV[3] == '1' then
  return redis.call('ZADD', SCHED, 'NX', '-inf', PAUSED)
end
local n = redis.call('ZREM', SCHED, PAUSED)
if n == 1 then wake() end
return n
