-- dead: ARGV[3] limit. The earliest dead-lettered jobs first:
-- { id, payload, attempts, dead-lettered at (ms), ... }, after putting lapsed
-- claims back as a pop would (a claim that used the last attempt is dead as
-- of its deadline). Dead ids whose payload is gone (deleted, or evicted under
-- an allkeys-* maxmemory-policy) are dropped, not listed.
--!include _queue_common.lua
local limit = int_arg(3)
put_back_lapsed()
local ids = redis.call('ZRANGE', DEAD, 0, limit - 1, 'WITHSCORES')
local out = {}
for i = 1, #ids, 2 do
  local id = ids[i]
  local p = redis.call('HGET', PAYLOAD, id)
  if p then
    out[#out + 1] = id
    out[#out + 1] = p
    out[#out + 1] = redis.call('HGET', ATTEMPTS, id)
    out[#out + 1] = ids[i + 1]
  else
    redis.call('ZREM', DEAD, id)
    forget(id)
  end
end
return out
