-- The reply of a fixed-window fast path (rl_fw.lua, rl_fwh.lua) that refuses:
-- `count` units used of `limit`, `left` µs of the window to run.
local function refused(limit, count, left)
  local rest = limit - count
  if rest < 0 then rest = 0 end
  local block = 0
  if count + 1 > limit then block = left end
  local reset = 0
  if count > 0 then reset = left end
  return { 0, rest, left, reset, block }
end
