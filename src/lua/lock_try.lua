--!flags
-- One attempt to take the lock without waiting: the hot path, one SET when
-- the lock is free. (Flagged, so over maxmemory Redis refuses it before it
-- runs: nothing is written.)
-- KEYS: lock; ARGV: token, ttl ms
-- Returns 1 when taken (or renewed: this owner held it already), or the
-- holder's PTTL in ms as -2 - PTTL (-1: none; a reservation for the fair queue
-- counts as held).
local lock, me, ttl = KEYS[1], ARGV[1], ARGV[2]
if redis.call('SET', lock, me, 'NX', 'PX', ttl) then return 1 end
local v = redis.call('GET', lock)
if v == me or v == me .. '\0w' then
  redis.call('PEXPIRE', lock, ttl)
  return 1
end
return -2 - redis.call('PTTL', lock)
