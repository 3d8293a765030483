-- Redlock: raises this node's fencing counter to the token the lock was
-- granted with (the highest of the majority), so any later majority, which
-- shares a node with this one, hands out a higher token.
-- KEYS: fence; ARGV: token, ttl ms
local f = tonumber(ARGV[1])
local last = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
if last < f then
  redis.call('SET', KEYS[1], string.format('%.0f', f), 'PX', math.max(86400000, 2 * tonumber(ARGV[2])))
end
return 1
