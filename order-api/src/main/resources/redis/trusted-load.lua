-- The load epoch of an item's counter if the gate may sell from it: it exists and was loaded in the life of
-- this Redis process (see take-stock.lua); else -1.
-- KEYS[1] stock:{item}   KEYS[2] stock:{item}:load   KEYS[3] stock:{item}:life
local info = redis.call('INFO', 'server')
local at = string.find(info, 'run_id:', 1, true)
if redis.call('GET', KEYS[3]) ~= string.sub(info, at + 7, at + 46) or redis.call('EXISTS', KEYS[1]) == 0 then
  return -1
end
return tonumber(redis.call('GET', KEYS[2])) or -1
