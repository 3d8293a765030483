#!lua
-- The shebang (no allow-oom flag) makes Redis refuse the whole call when it is
-- over maxmemory, before anything runs, also inside MULTI/EXEC; without one
-- Redis checks only the first write, which a ZREM (never refused) slips past.
-- incrementScore: ARGV[3] member, ARGV[4] delta. Returns the new main-board score.
--!include _lb_common.lua
--!include _lb_write.lua
local list = boards()
local wrong = wrong_type(list)
if wrong then return redis.error_reply(wrong) end
local m, delta = ARGV[3], number_arg(4)
local plan = {}
for j, b in ipairs(list) do
  local old, oldm = get(b, m)
  local new = (old and tonumber(old) or 0) + delta
  if new ~= new then
    return redis.error_reply('ERR resulting score is not a number (NaN)')
  end
  plan[j] = { old, oldm, new }
end
for j, b in ipairs(list) do
  put(b, m, plan[j][3], plan[j][1], plan[j][2])
end
touch(list)
return string.format('%.17g', plan[1][3])
