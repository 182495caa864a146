-- The compensation: returns an order's quantity whose database transaction did not commit.
-- KEYS[1] stock:{item}   KEYS[2] stock:{item}:gen   KEYS[3] stock:{item}:load
-- KEYS[4] what guards this give-back: stock:{item}:taken:{order}, or stock:{item}:in-doubt for an order held in doubt
-- KEYS[5] stock:{item}:idem:{key}, only with an Idempotency-Key
-- ARGV[1] quantity   ARGV[2] generation the quantity was taken from   ARGV[3] user id   ARGV[4] order code
-- ARGV[5] 'in-doubt' for an order held in doubt, else 'taken'   ARGV[6] the load the quantity was taken under
-- Returns 1 when the stock was given back, 0 when it was given back already, or belongs to a generation or a
-- load of the counter that is gone.
if KEYS[5] then
  -- forget the first answer, so that a retry with the same key is a new attempt
  redis.call('DEL', KEYS[5])
end
-- each order gives back once, even if this script is sent twice (by Lettuce after a reconnect)
local guard
if ARGV[5] == 'in-doubt' then
  guard = redis.call('HDEL', KEYS[4], ARGV[4])
else
  guard = redis.call('DEL', KEYS[4])
end
if guard == 0 then
  return 0
end
-- after a reset or a reload (a new load) or a lost counter, adding the quantity back would create stock: the
-- new counter was counted from the orders written, without this one
if (redis.call('GET', KEYS[2]) or '0') ~= ARGV[2] or (redis.call('GET', KEYS[3]) or '') ~= ARGV[6]
    or redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
redis.call('INCRBY', KEYS[1], ARGV[1])
-- every order-api forgets that the item was sold out (io.flashstock.order.placement.RefusalMemory)
redis.call('PUBLISH', 'stock:raised', KEYS[1])
local userKey = KEYS[1] .. ':e' .. ARGV[6] .. ':user:' .. ARGV[3]
if redis.call('EXISTS', userKey) == 1 then
  redis.call('DECRBY', userKey, ARGV[1])
end
return 1
