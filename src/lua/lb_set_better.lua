#!lua
-- The shebang (no allow-oom flag) makes Redis refuse the whole call when it is
-- over maxmemory, before anything runs, also inside MULTI/EXEC; without one
-- Redis checks only the first write, which a ZREM (never refused) slips past.
-- setScoreIfBetter: ARGV[3] member, ARGV[4] score. Returns 1 if the main board stored it.
--!include _lb_common.lua
--!include _lb_write.lua
local list = boards()
local wrong = wrong_type(list)
if wrong then return redis.error_reply(wrong) end
local m, s = ARGV[3], number_arg(4)
local stored = 0
for j, b in ipairs(list) do
  local old, oldm = get(b, m)
  local better = not old or (DESC and s > tonumber(old)) or (not DESC and s < tonumber(old))
  if better then
    put(b, m, s, old, oldm)
    if j == 1 then stored = 1 end
  end
end
touch(list)
return stored
