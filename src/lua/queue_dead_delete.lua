-- deleteDead: ARGV[3] 'ids' (ARGV[4..] = job ids) or 'all' (ARGV[4] = look
-- at most at this many, oldest dead first). Dead jobs are deleted with their
-- payload and attempts, after putting lapsed claims back as a pop would (a
-- claim that used the last attempt is dead by then). A job that is not dead
-- is left alone. Returns { how many were deleted, dead entries looked at }.
--!include _queue_common.lua
put_back_lapsed()
local ids = dead_ids_arg()
local deleted = 0
for _, id in ipairs(ids) do
  if redis.call('ZREM', DEAD, id) == 1 then
    if redis.call('HEXISTS', PAYLOAD, id) == 1 then deleted = deleted + 1 end
    forget(id)
  end
end
return { deleted, #ids }
