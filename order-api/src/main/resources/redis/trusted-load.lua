-- The load epoch of an item's counter if the gate may sell from it: it exists and was loaded in the life of
-- this Redis data set (life.lua); else -1.
-- KEYS[1] stock:{item}   KEYS[2] stock:{item}:load   KEYS[3] stock:{item}:life
if redis.call('GET', KEYS[3]) ~= redis_life() or redis.call('EXISTS', KEYS[1]) == 0 then
  return -1
end
return tonumber(redis.call('GET', KEYS[2])) or -1
