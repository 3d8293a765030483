-- top/page/between: ARGV[3], ARGV[4] = 0-based first and last position.
--!include _lb_common.lua
return list(board(KEYS[1]), tonumber(ARGV[3]), tonumber(ARGV[4]))
