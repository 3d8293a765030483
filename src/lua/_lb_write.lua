-- Write helpers for lb_set/lb_set_better/lb_incr/lb_remove (after _lb_common.lua).
local NOW_MS, NOW_S
local function now()
  if not NOW_MS then
    local t = redis.call('TIME')
    NOW_S = tonumber(t[1])
    NOW_MS = NOW_S * 1000 + math.floor(tonumber(t[2]) / 1000)
  end
  return NOW_MS
end

-- Strictly increasing per board family: server milliseconds * 1000, plus a
-- tie-breaker for events in the same millisecond (and if the clock steps back).
local last_seq
local function next_seq()
  if not last_seq then last_seq = tonumber(redis.call('GET', KEYS[2]) or '0') end
  local base = now() * 1000
  if last_seq + 1 > base then last_seq = last_seq + 1 else last_seq = base end
  return last_seq
end

local function encode(seq)
  if DESC then return string.format('%014x', SEQ_SPAN - seq) end
  return string.format('%014x', seq)
end

local function dense_add(b, c)
  if redis.call('HINCRBY', b.dc, c, 1) == 1 then redis.call('ZADD', b.ds, c, c) end
end

local function dense_del(b, c)
  if redis.call('HINCRBY', b.dc, c, -1) <= 0 then
    redis.call('HDEL', b.dc, c)
    redis.call('ZREM', b.ds, c)
  end
end

-- store score s (a number) for m on b; the time moves only if the score does
local function put(b, m, s, old, oldm)
  if old and tonumber(old) == s then return false end
  local news = string.format('%.17g', s)
  if EARLIEST then
    if oldm then redis.call('ZREM', b.z, oldm) end
    local p = encode(next_seq())
    redis.call('HSET', b.seq, m, p)
    redis.call('ZADD', b.z, news, p .. m)
  else
    redis.call('ZADD', b.z, news, m)
  end
  if DENSE then
    if old then dense_del(b, canon(old)) end
    dense_add(b, news)
  end
  return true
end

local function del(b, m)
  local old, oldm = get(b, m)
  if not old then return 0 end
  redis.call('ZREM', b.z, oldm)
  if EARLIEST then redis.call('HDEL', b.seq, m) end
  if DENSE then dense_del(b, canon(old)) end
  return 1
end

-- calendar (UTC) helpers, days since 1970-01-01
local function floor(x) return math.floor(x) end
local function days_from_civil(y, m, d)
  if m <= 2 then y = y - 1 end
  local era = floor(y / 400)
  local yoe = y - era * 400
  local mp = m > 2 and m - 3 or m + 9
  local doy = floor((153 * mp + 2) / 5) + d - 1
  local doe = yoe * 365 + floor(yoe / 4) - floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
end
local function civil_from_days(z)
  z = z + 719468
  local era = floor(z / 146097)
  local doe = z - era * 146097
  local yoe = floor((doe - floor(doe / 1460) + floor(doe / 36524) - floor(doe / 146096)) / 365)
  local y = yoe + era * 400
  local doy = doe - (365 * yoe + floor(yoe / 4) - floor(yoe / 100))
  local mp = floor((5 * doy + 2) / 153)
  local d = doy - floor((153 * mp + 2) / 5) + 1
  local m = mp < 10 and mp + 3 or mp - 9
  if m <= 2 then y = y + 1 end
  return y, m, d
end

-- {key suffix, expire-at ms} of the current period board of kind c; periods
-- follow the calendar at UTC + OFFSET seconds
local function period(c)
  now()
  local lt = NOW_S + OFFSET
  local days = floor(lt / 86400)
  local function at(day) return (day * 86400 - OFFSET) * 1000 end
  if c == 'd' then
    local y, m, d = civil_from_days(days)
    return string.format('daily:%04d-%02d-%02d', y, m, d), at(days + 1 + RETENTION)
  elseif c == 'w' then
    local wd = (days + 3) % 7 + 1 -- ISO weekday, Monday = 1
    local thu = days - wd + 4
    local y = civil_from_days(thu)
    local week = floor((thu - days_from_civil(y, 1, 1)) / 7) + 1
    return string.format('weekly:%04d-W%02d', y, week), at(days - wd + 8 + 7 * RETENTION)
  else
    local y, m = civil_from_days(days)
    local mm = m + 1 + RETENTION
    local ey = y + floor((mm - 1) / 12)
    mm = (mm - 1) % 12 + 1
    return string.format('monthly:%04d-%02d', y, m), at(days_from_civil(ey, mm, 1))
  end
end

-- the main board plus the current board of every configured period
local function boards()
  local list = { board(KEYS[1]) }
  if PERIODS ~= '-' then
    for c in string.gmatch(PERIODS, '.') do
      local name, expire_at = period(c)
      local b = board(ARGV[2] .. name)
      b.expire_at = expire_at
      list[#list + 1] = b
    end
  end
  return list
end

-- A key of the wrong type, found before anything is written: a script that
-- fails half-way keeps what it wrote before (an earliest board's seq hash
-- next to a string board). Returns the error text, or nil.
local function wrong_type(list)
  local want = {}
  for _, b in ipairs(list) do
    want[#want + 1] = { b.z, 'zset' }
    if EARLIEST then want[#want + 1] = { b.seq, 'hash' } end
    if DENSE then
      want[#want + 1] = { b.ds, 'zset' }
      want[#want + 1] = { b.dc, 'hash' }
    end
  end
  if EARLIEST then want[#want + 1] = { KEYS[2], 'string' } end
  for _, w in ipairs(want) do
    local t = redis.call('TYPE', w[1]).ok
    if t ~= 'none' and t ~= w[2] then
      return 'WRONGTYPE Operation against a key holding the wrong kind of value'
    end
  end
  return nil
end

-- expiry after a write: period boards at the end of their retention, the
-- main board ttl after its last write
local function touch(list)
  for _, b in ipairs(list) do
    local keys = { b.z }
    if EARLIEST then keys[#keys + 1] = b.seq end
    if DENSE then keys[#keys + 1] = b.ds; keys[#keys + 1] = b.dc end
    for _, k in ipairs(keys) do
      if b.expire_at then
        redis.call('PEXPIREAT', k, b.expire_at)
      elseif TTL > 0 then
        redis.call('PEXPIRE', k, TTL)
      end
    end
  end
  if last_seq then
    if TTL > 0 then
      redis.call('SET', KEYS[2], string.format('%d', last_seq), 'PX', TTL)
    else
      redis.call('SET', KEYS[2], string.format('%d', last_seq))
    end
  end
end

local function number_arg(i)
  local v = tonumber(ARGV[i])
  if not v or v ~= v then error('rediskit: bad score argument') end
  return v
end
