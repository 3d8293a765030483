--!flags no-writes
-- KEYS: lock; ARGV: token. Returns the lock's PTTL in ms if `token` holds it, else -3.
local v = redis.call('GET', KEYS[1])
if v ~= ARGV[1] and v ~= ARGV[1] .. '\0w' then return -3 end
return redis.call('PTTL', KEYS[1])
