-- inspect (an operator's view, read only): the lock's value (nil: free), its
-- TTL in ms (-2: no key), the last fencing token handed out (nil: none yet),
-- how many waiters are alive (heartbeat deadline not passed), and the first
-- ARGV[1] tokens of the fair queue in arrival order.
-- KEYS: lock, fence, waiters, queue
local t = redis.call('TIME')
local now_ms = math.floor((tonumber(t[1]) * 1000000 + tonumber(t[2])) / 1000)
local n = tonumber(ARGV[1])
local queue = {}
if n > 0 then queue = redis.call('ZRANGE', KEYS[4], 0, n - 1) end
return { redis.call('GET', KEYS[1]), redis.call('PTTL', KEYS[1]), redis.call('GET', KEYS[2]),
  redis.call('ZCOUNT', KEYS[3], string.format('%.0f', now_ms), '+inf'), queue }
