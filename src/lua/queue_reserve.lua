-- reserve: ARGV[3] n. Takes n ids for a pushMany batch of several slices
-- (queue_push with ARGV[5] = the base returned here): the batch is admitted
-- or, under maxmemory, refused here with nothing written. Returns base (the
-- ids are base+1 .. base+n).
--!include _queue_common.lua
local base = alloc_ids(int_arg(3))
return base
