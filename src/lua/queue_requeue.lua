-- requeueDead: ARGV[3] 'ids' (ARGV[4..] = job ids) or 'all' (ARGV[4] = look at
-- most at this many, oldest dead first). Dead jobs become due now with
-- attempts 0 and no claim, after putting lapsed claims back as a pop would
-- (a claim that used the last attempt is dead by then). Returns { how many
-- moved, dead entries looked at }.
--!include _queue_common.lua
put_back_lapsed()
local ids = dead_ids_arg()
local moved = 0
for _, id in ipairs(ids) do
  if redis.call('ZREM', DEAD, id) == 1 then
    if redis.call('HEXISTS', PAYLOAD, id) == 1 then
      redis.call('ZADD', SCHED, fmt(NOW_MS), id)
      redis.call('HDEL', ATTEMPTS, id)
      redis.call('HDEL', CLAIM, id)
      moved = moved + 1
    else
      forget(id) -- remnant of a job whose data was deleted by hand
    end
  end
end
if moved > 0 and needs_wake(NOW_MS) then wake_now() end
return { moved, #ids }
