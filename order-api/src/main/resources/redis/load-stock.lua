-- Sets an item's counter, generation and per-user limit together (stock reset, reload, warm-up), under the
-- load epoch the database recorded for this load (stock_item.load_epoch), and marks the counter as loaded in
-- the life of this Redis data set (life.lua).
-- KEYS[1] stock:{item}   KEYS[2] stock:{item}:gen   KEYS[3] stock:{item}:limit   KEYS[4] stock:{item}:in-doubt
-- KEYS[5] stock:{item}:load   KEYS[6] stock:{item}:life   KEYS[7] stock:{item}:gate
-- ARGV[1] units left, '' for no counter (the item's gate is the database)   ARGV[2] generation
-- ARGV[3] per-user limit, '' for none   ARGV[4] the load epoch   ARGV[5] the item's gate
-- Returns 1 when applied, 0 when Redis holds this load or a later one already (a later reset or reload won
-- the race: epochs only grow, resets included).
if tonumber(ARGV[4]) <= (tonumber(redis.call('GET', KEYS[5]) or '') or -1) then
  return 0
end
if ARGV[1] == '' then
  -- the epoch stays, so that a late load of an older reset cannot bring a counter back
  redis.call('DEL', KEYS[1], KEYS[7])
else
  redis.call('SET', KEYS[1], ARGV[1])
  redis.call('SET', KEYS[7], ARGV[5])
end
redis.call('SET', KEYS[2], ARGV[2])
if ARGV[3] == '' then
  redis.call('DEL', KEYS[3])
else
  redis.call('SET', KEYS[3], ARGV[3])
end
-- the new counter was counted from the orders written: no order is in doubt for it any more
redis.call('DEL', KEYS[4])
-- stock taken before this load is in the count now (or fenced out of the database): none of it is given back
redis.call('SET', KEYS[5], ARGV[4])
redis.call('SET', KEYS[6], redis_life())
return 1
