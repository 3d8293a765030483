-- score/rank/entry/percentile of ARGV[3]: {score, rank, count, strictly better} or nil.
--!include _lb_common.lua
local b = board(KEYS[1])
local s, zm = get(b, ARGV[3])
if not s then return false end
return { s, rank_of(b, s, zm), redis.call('ZCARD', b.z), better_count(b, s) }
