-- Ends an attempt to write a token's order (io.flashstock.order.token.TokenHolds), atomically.
-- KEYS[1] stock:{item}:tokens   KEYS[2] stock:{item}:token-expiry
-- ARGV[1] the token's id   ARGV[2] 'written': the order is in the database, so the hold is gone (its units are the
-- order's now); 'retry': the order was not written, so the hold is issued again (its units stay held, and come back
-- at its expiry)   ARGV[3] the attempt (ms) that is ending: a hold another attempt took over is left alone
-- Returns 1 when the hold changed, else 0.
local entry = redis.call('HGET', KEYS[1], ARGV[1])
if not entry then
  return 0
end
if ARGV[2] == 'written' then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
  return 1
end
local qty, gen, expires, attempt, rest = string.match(entry, '^o:(%d+):(%d+):(%d+):(%d+):(.*)$')
if attempt ~= ARGV[3] then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], 'i:' .. qty .. ':' .. gen .. ':' .. expires .. ':0:' .. rest)
return 1
