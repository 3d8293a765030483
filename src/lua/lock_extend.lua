-- Resets the lock's TTL if `token` holds it.
-- KEYS: lock; ARGV: token, ttl ms. Returns 1 if extended, 0 if not the owner.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
