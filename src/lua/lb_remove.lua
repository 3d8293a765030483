-- remove: ARGV[3..] members. Returns how many were on the main board.
--!include _lb_common.lua
--!include _lb_write.lua
local list = boards()
local wrong = wrong_type(list)
if wrong then return redis.error_reply(wrong) end
local removed = 0
for i = 3, #ARGV do
  for j, b in ipairs(list) do
    local n = del(b, ARGV[i])
    if j == 1 then removed = removed + n end
  end
end
touch(list)
return removed
