--!flags allow-oom
-- Resets the lock's TTL if `token` holds it.
-- KEYS: lock; ARGV: token, ttl ms. Returns 1 if extended, 0 if not the owner.
local v = redis.call('GET', KEYS[1])
if v ~= ARGV[1] and v ~= ARGV[1] .. '\0w' then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
