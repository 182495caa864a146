-- Before a rebuild (or a reset of an item sold before) loads an item's counter: if Redis lost the item's keys
-- (the counter is missing, or was loaded in an earlier life of the Redis data set, life.lua), the first answers to
-- its Idempotency-Keys are gone or may be, and the take script asks for the database's until the keys' lifetime
-- has passed (StockKeys.keysLost).
-- KEYS[1] stock:{item}   KEYS[2] stock:{item}:life   KEYS[3] stock:{item}:keys-lost
-- ARGV[1] the Idempotency-Keys' lifetime (ms)
-- Returns 1 when it marked the keys as lost, 0 when Redis still holds them.
if redis.call('GET', KEYS[2]) == redis_life() and redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('SET', KEYS[3], '1', 'PX', ARGV[1])
return 1
