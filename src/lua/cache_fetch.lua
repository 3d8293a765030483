-- remember() after a miss: the value if it has appeared meanwhile; or else
-- the claim to compute it; or else how long the claim another caller holds
-- has left (this caller then counts itself as a waiter, to be woken by the
-- write). A hit is a plain GET: this script only runs on a miss.
-- KEYS: value, claim, waiters
-- ARGV: claim token, claim ms
-- Returns the value, 0 when this caller now holds the claim, or {ms left,
-- holder's token} when another caller holds it.
local v = redis.call('GET', KEYS[1])
if v then return v end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return 0 end
local left = redis.call('PTTL', KEYS[2])
if left < 1 then left = tonumber(ARGV[2]) end
redis.call('INCR', KEYS[3])
redis.call('PEXPIRE', KEYS[3], left + 1000)
return {left, redis.call('GET', KEYS[2]) or ''}
