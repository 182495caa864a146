-- The compensation: returns an order's quantity whose database transaction did not commit.
-- KEYS[1] stock:{item}   KEYS[2] stock:{item}:gen   KEYS[3] stock:{item}:idem:{key}, only with an Idempotency-Key
-- ARGV[1] quantity   ARGV[2] generation the quantity was taken from   ARGV[3] user id
-- Returns 1 when the stock was given back, 0 when it belongs to a generation that is gone.
if KEYS[3] then
  -- forget the first answer, so that a retry with the same key is a new attempt
  redis.call('DEL', KEYS[3])
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
