-- KEYS: lock; ARGV: token. Returns the lock's PTTL in ms if `token` holds it, else -3.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -3 end
return redis.call('PTTL', KEYS[1])
