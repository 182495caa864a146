-- Forgets an Idempotency-Key whose first attempt was abandoned: its order was never committed, and nothing of
-- it is left that could still write or give back, so that a retry is served as a new attempt.
-- KEYS[1] stock:{item}:taken:{order}   KEYS[2] stock:{item}:in-doubt   KEYS[3] stock:{item}:idem:{key}
-- ARGV[1] the first attempt's order code   ARGV[2] the first answer stored for the key
-- Returns 1 when the key was forgotten; 0 when the attempt may still act (its take's record is there: its request
-- may still commit or give back; or it is held in doubt, and order-api settles it), or the key changed.
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then
  return 0
end
if redis.call('GET', KEYS[3]) ~= ARGV[2] then
  return 0
end
return redis.call('DEL', KEYS[3])
