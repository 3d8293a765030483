-- touch(): a new TTL for an existing value, and the same end in its header
-- (where readers look for it), in one step.
-- KEYS: value
-- ARGV: expires at (unix ms, 0: never), px (0: no expiry)
-- Returns 1, or 0 when the key is missing.
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
local head, f, d = string.match(v, '^(rk1:(%a):(%d+):%d+:)')
if head then
  v = 'rk1:' .. f .. ':' .. d .. ':' .. ARGV[1] .. ':' .. string.sub(v, #head + 1)
end
if tonumber(ARGV[2]) > 0 then
  redis.call('SET', KEYS[1], v, 'PX', ARGV[2])
else
  redis.call('SET', KEYS[1], v)
end
return 1
