-- The compensation: returns an order's quantity whose database transaction did not commit.
-- KEYS[1] stock:{item}   KEYS[2] stock:{item}:gen   KEYS[3] stock:{item}:in-doubt
-- KEYS[4] stock:{item}:idem:{key}, only with an Idempotency-Key
-- ARGV[1] quantity   ARGV[2] generation the quantity was taken from   ARGV[3] user id   ARGV[4] order code
-- ARGV[5] '1' when the order was held in doubt, else '0'
-- Returns 1 when the stock was given back, 0 when it belongs to a generation that is gone or was recounted.
if KEYS[4] then
  -- forget the first answer, so that a retry with the same key is a new attempt
  redis.call('DEL', KEYS[4])
end
-- an order in doubt is given back only once, and not at all after a reload recounted the item without it
if ARGV[5] == '1' and redis.call('HDEL', KEYS[3], ARGV[4]) == 0 then
  return 0
end
-- after a reset (new generation) or a lost counter, adding the quantity back would create stock
if (redis.call('GET', KEYS[2]) or '0') ~= ARGV[2] or redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
redis.call('INCRBY', KEYS[1], ARGV[1])
local userKey = KEYS[1] .. ':g' .. ARGV[2] .. ':user:' .. ARGV[3]
if redis.call('EXISTS', userKey) == 1 then
  redis.call('DECRBY', userKey, ARGV[1])
end
return 1
