-- Shared by the lb_*.lua scripts (inlined at build time).
-- KEYS[1] board, KEYS[2] clock, KEYS[3] seq hash, KEYS[4] dense zset, KEYS[5] dense counts
-- ARGV[1] config "order;ranking;ties;ttl_ms;periods;retention;utc_offset_s", e.g. "d;o;l;0;-;2;0"
-- ARGV[2] prefix of period board keys
local ORDER, RANKING, TIES, TTL, PERIODS, RETENTION, OFFSET =
  string.match(ARGV[1], '^([ad]);([ocd]);([le]);(%d+);([dwm%-]*);(%d+);(%-?%d+)$')
if not ORDER then return redis.error_reply('ERR rediskit: bad leaderboard config') end
TTL = tonumber(TTL)
RETENTION = tonumber(RETENTION)
OFFSET = tonumber(OFFSET)
local DESC = ORDER == 'd'
local EARLIEST = TIES == 'e'
local DENSE = RANKING == 'd'
local SEQ_SPAN = 9007199254740992 -- 2^53: every sequence number is below it

-- Same rule as the Rust side: reuse the board's own hash tag, else wrap it.
local function aux(key, suffix)
  local o = string.find(key, '{', 1, true)
  if o then
    local c = string.find(key, '}', o + 1, true)
    if c and c > o + 1 then return key .. ':' .. suffix end
  end
  return '{' .. key .. '}:' .. suffix
end

local function board(key)
  return { z = key, seq = aux(key, 'seq'), ds = aux(key, 'ds'), dc = aux(key, 'dc') }
end

local function canon(s)
  return string.format('%.17g', tonumber(s))
end

-- score string and stored member of m on b, or nil
local function get(b, m)
  if EARLIEST then
    local p = redis.call('HGET', b.seq, m)
    if not p then return nil end
    local zm = p .. m
    local s = redis.call('ZSCORE', b.z, zm)
    if not s then return nil end
    return s, zm
  end
  local s = redis.call('ZSCORE', b.z, m)
  if not s then return nil end
  return s, m
end

-- members strictly better than score string s
local function better_count(b, s)
  if DESC then return redis.call('ZCOUNT', b.z, '(' .. s, '+inf') end
  return redis.call('ZCOUNT', b.z, '-inf', '(' .. s)
end

-- distinct scores strictly better than s (dense ranking)
local function dense_better(b, s)
  local c = canon(s)
  if DESC then return redis.call('ZCOUNT', b.ds, '(' .. c, '+inf') end
  return redis.call('ZCOUNT', b.ds, '-inf', '(' .. c)
end

local function rank_of(b, s, zm)
  if RANKING == 'c' then return better_count(b, s) + 1 end
  if DENSE then return dense_better(b, s) + 1 end
  if DESC then return redis.call('ZREVRANK', b.z, zm) + 1 end
  return redis.call('ZRANK', b.z, zm) + 1
end

local function strip(zm)
  if EARLIEST then return string.sub(zm, 15) end
  return zm
end

-- flat {member, score, rank, ...} for 0-based positions start..stop
local function list(b, start, stop)
  local items
  if DESC then
    items = redis.call('ZREVRANGE', b.z, start, stop, 'WITHSCORES')
  else
    items = redis.call('ZRANGE', b.z, start, stop, 'WITHSCORES')
  end
  local out = {}
  local prev_s, prev_rank
  for i = 1, #items, 2 do
    local s = items[i + 1]
    local pos = start + (i - 1) / 2
    local r
    if RANKING == 'o' then
      r = pos + 1
    elseif prev_s and tonumber(s) == tonumber(prev_s) then
      r = prev_rank
    elseif RANKING == 'c' then
      if prev_s then r = pos + 1 else r = better_count(b, s) + 1 end
    else
      if prev_s then r = prev_rank + 1 else r = dense_better(b, s) + 1 end
    end
    out[#out + 1] = strip(items[i])
    out[#out + 1] = s
    out[#out + 1] = r
    prev_s, prev_rank = s, r
  end
  return out
end
