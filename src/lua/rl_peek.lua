-- peek: what an attempt of `cost` would get now; writes nothing.
--!include _rl_common.lua
return reply(check(false))
