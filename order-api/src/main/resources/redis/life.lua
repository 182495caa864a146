-- The life of the Redis data set a script runs in: the process (its run_id) and its replication history (its
-- master_replid, new at every promotion). A counter is sold from only in the life that loaded it: one restored
-- from a file or promoted from a replica may have lost its last decrements. Prepended to the scripts that use it.
local function redis_life()
  local info = redis.call('INFO', 'server', 'replication')
  local run = string.match(info, 'run_id:(%x+)')
  local replid = string.match(info, 'master_replid:(%x+)')
  if not run or not replid then
    error('INFO names no run_id or master_replid: the stock gate cannot tell a restored counter')
  end
  return run .. ':' .. replid
end
