-- remember(): the cached value; or else the claim to compute it; or else how
-- long the claim another caller holds has left (this caller then counts
-- itself as a waiter, to be woken by the write).
-- KEYS: value, claim, waiters
-- ARGV: claim token, claim ms
-- Returns {value, pttl} on a hit, 0 when this caller now holds the claim,
-- {ms left, holder's token} when another caller holds it.
local v = redis.call('GET', KEYS[1])
if v then return {v, redis.call('PTTL', KEYS[1])} end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return 0 end
local left = redis.call('PTTL', KEYS[2])
if left < 1 then left = tonumber(ARGV[2]) end
redis.call('INCR', KEYS[3])
redis.call('PEXPIRE', KEYS[3], left + 1000)
return {left, redis.call('GET', KEYS[2]) or ''}
