#!lua
-- The shebang (no allow-oom flag) makes Redis refuse the whole call when it is
-- over maxmemory, before anything runs, also inside MULTI/EXEC; without one
-- Redis checks only the first write, which a ZREM (never refused) slips past.
-- setScore / setScores: ARGV[3..] = member, score pairs. Returns how many members were new.
--!include _lb_common.lua
--!include _lb_write.lua
local list = boards()
local wrong = wrong_type(list)
if wrong then return redis.error_reply(wrong) end
local added = 0
for i = 3, #ARGV, 2 do
  local m, s = ARGV[i], number_arg(i + 1)
  for j, b in ipairs(list) do
    local old, oldm = get(b, m)
    if j == 1 and not old then added = added + 1 end
    put(b, m, s, old, oldm)
  end
end
touch(list)
return added
