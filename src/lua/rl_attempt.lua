-- attempt / attemptAll: checks every limiter at one instant, then consumes
-- `cost` from all of them if all allow it, from none otherwise.
--!include _rl_common.lua
local n, Ls, Ss, Rs, all = check(true)
if all then
  for i = 1, n do
    algorithm(Ls[i].alg).commit(Ls[i], Ss[i], Rs[i])
  end
end
return reply(n, Ls, Ss, Rs, all)
