-- The token gate's redemption, one atomic step (io.flashstock.order.token.TokenHolds): the token's hold goes from
-- issued to ordering, so that one attempt at a time writes its order, and only while the hold is unexpired by
-- Redis's clock (the sweeper decides expiry by the same clock, in the same kind of atomic step).
-- KEYS[1] stock:{item}   KEYS[2] stock:{item}:gen   KEYS[3] stock:{item}:load   KEYS[4] stock:{item}:life
-- KEYS[5] stock:{item}:tokens
-- ARGV[1] the token's id   ARGV[2] grace after the token's expiry (ms)   ARGV[3] the token's user
-- ARGV[4] the token's quantity
-- A hold is 'state:quantity:generation:expires:attempt:remaining:user', state 'i' (issued) or 'o' (ordering since
-- attempt, ms). The hold, not the token, says what is ordered: a token whose user or quantity is not its hold's
-- (re-signed by whoever has the key) changes nothing; its item is the hold's, since the item names the key. Returns strings:
--   {'STARTED', load, generation, remaining, attempt, quantity, user}  the hold is now ordering: write its order
--                                                                      (its quantity, its user) under that load
--   {'MISMATCH'}  the token's user or quantity is not its hold's
--   {'ABSENT', current generation or ''}               no hold: its order was written, or its units came back
--   {'ORDERING', attempt, now}                        another attempt is writing the order (or died doing so)
--   {'EXPIRED'}  past its expiry and grace: the sweeper gives its units back
--   {'VOID'}     of a generation a reset replaced
--   {'UNTRUSTED'} the counter must be rebuilt first
local entry = redis.call('HGET', KEYS[5], ARGV[1])
if not entry then
  return {'ABSENT', redis.call('GET', KEYS[2]) or ''}
end
local state, qty, gen, expires, attempt, remaining, user =
    string.match(entry, '^(%a):(%d+):(%d+):(%d+):(%d+):(%-?%d+):(.*)$')
if user ~= ARGV[3] or tonumber(qty) ~= tonumber(ARGV[4]) then
  return {'MISMATCH'}
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if state == 'o' then
  return {'ORDERING', attempt, string.format('%d', now)}
end
if now > tonumber(expires) + tonumber(ARGV[2]) then
  return {'EXPIRED'}
end
if (redis.call('GET', KEYS[2]) or '') ~= gen then
  return {'VOID'}
end
-- the order is fenced by the load it reads here (stock_item.load_epoch): a reload since counts this hold anew
local load = tonumber(redis.call('GET', KEYS[3]))
if not load or redis.call('GET', KEYS[4]) ~= redis_life() then
  return {'UNTRUSTED'}
end
local started = string.format('%d', now)
redis.call('HSET', KEYS[5], ARGV[1], 'o:' .. qty .. ':' .. gen .. ':' .. expires .. ':' .. started .. ':'
    .. remaining .. ':' .. user)
return {'STARTED', tostring(load), gen, remaining, started, qty, user}
