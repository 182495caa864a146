-- The load epoch of an item's counter if the gate may sell from it: it exists and was loaded in the life of
-- this Redis data set (see take-stock.lua); else -1.
-- KEYS[1] stock:{item}   KEYS[2] stock:{item}:load   KEYS[3] stock:{item}:life
local info = redis.call('INFO', 'server', 'replication')
local run = string.match(info, 'run_id:(%x+)')
local replid = string.match(info, 'master_replid:(%x+)')
if not run or not replid or redis.call('GET', KEYS[3]) ~= run .. ':' .. replid
    or redis.call('EXISTS', KEYS[1]) == 0 then
  return -1
end
return tonumber(redis.call('GET', KEYS[2])) or -1
