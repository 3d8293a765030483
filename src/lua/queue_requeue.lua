-- requeueDead: ARGV[3] 'id' (ARGV[4] = job id) or 'all' (ARGV[4] = look at
-- most at this many, oldest dead first). Dead jobs become due now with
-- attempts 0. Returns { how many moved, how many dead-set entries looked at }.
--!include _queue_common.lua
local ids
if ARGV[3] == 'id' then
  ids = { ARGV[4] }
else
  ids = redis.call('ZRANGE', DEAD, 0, int_arg(4) - 1)
end
local old_head = head_due()
local moved = 0
for _, id in ipairs(ids) do
  local m = meta_get(id)
  if m and m.state == 'D' then
    redis.call('ZREM', DEAD, id)
    redis.call('ZADD', SCHED, fmt(NOW_MS), id)
    set_meta(id, 'S', 0, NOW_MS, '')
    moved = moved + 1
  elseif ARGV[3] == 'all' then
    -- a dead-set entry without a dead job behind it (data deleted by hand)
    redis.call('ZREM', DEAD, id)
    if not m then forget(id) end
  end
end
if moved > 0 then wake_if_earlier(NOW_MS, old_head) end
return { moved, #ids }
