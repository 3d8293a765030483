-- increment(): adds ARGV[1] to an integer value written by RedisCache,
-- keeping its TTL and its format, or stores ARGV[1] (no expiry) when the key
-- is missing.
-- KEYS: value
-- ARGV: by, the format of a new value ('p' PHP serialize, 'j' JSON, 's' a string)
-- Returns the new value; an error (nothing written) when the value is not an
-- integer or the result would leave the exact range of a double.
local v = redis.call('GET', KEYS[1])
local by = tonumber(ARGV[1])
local head, fmt, n
if not v then
  fmt = ARGV[2]
  head = 'rk1:' .. fmt .. ':0:0:'
  n = 0
else
  head, fmt = string.match(v, '^(rk1:(%a):%d+:%d+:)')
  if head then
    local payload = string.sub(v, #head + 1)
    if fmt == 'p' then
      n = tonumber(string.match(payload, '^i:(%-?%d+);$'))
    elseif fmt == 'j' or fmt == 's' then
      n = tonumber(string.match(payload, '^(%-?%d+)$'))
    end
  end
  if not n then
    return redis.error_reply('ERR RedisCache: the value is not an integer, it cannot be incremented')
  end
end
n = n + by
if n >= 9007199254740992 or n <= -9007199254740992 then
  return redis.error_reply('ERR RedisCache: the result is out of the range of exact integers (2^53)')
end
local text = string.format('%.0f', n)
if fmt == 'p' then text = 'i:' .. text .. ';' end
if v then
  redis.call('SET', KEYS[1], head .. text, 'KEEPTTL')
else
  redis.call('SET', KEYS[1], head .. text)
end
return n
