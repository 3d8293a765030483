-- dead: ARGV[3] limit. The oldest dead-lettered jobs first:
-- { id, payload, attempts, due ms, ... }.
--!include _queue_common.lua
local ids = redis.call('ZRANGE', DEAD, 0, int_arg(3) - 1)
local out = {}
for _, id in ipairs(ids) do
  local m = meta_get(id)
  local p = redis.call('HGET', PAYLOAD, id)
  if m and p then
    out[#out + 1] = id
    out[#out + 1] = p
    out[#out + 1] = m.attempts
    out[#out + 1] = m.due
  end
end
return out
