--!flags
-- Issues the fencing token of the current lease, asked for by its holder:
-- strictly greater than every token issued before for this lock. Issued only
-- while `token` holds the lock, so tokens follow the order of the leases.
-- KEYS: lock, fence; ARGV: token, ttl ms
-- Returns the fencing token, or 0 if `token` does not hold the lock.
local v = redis.call('GET', KEYS[1])
if v ~= ARGV[1] and v ~= ARGV[1] .. '\0w' then return 0 end
--!include _lock_common.lua
return next_fence(KEYS[2], tonumber(ARGV[2]))
