-- The stock gate: checks and takes an order's quantity in one atomic step.
-- KEYS[1] stock:{item}   KEYS[2] stock:{item}:gen   KEYS[3] stock:{item}:limit   KEYS[4] stock:{item}:taken:{order}
-- KEYS[5] stock:{item}:load   KEYS[6] stock:{item}:life   KEYS[7] stock:{item}:gate
-- KEYS[8] stock:{item}:idem:{key}, only when the request carries an Idempotency-Key
-- KEYS[9] stock:{item}:keys-lost, only with KEYS[8], unless the database was asked for the key already
-- ARGV[1] quantity   ARGV[2] user id   ARGV[3] order code   ARGV[4] idempotency TTL (ms)   ARGV[5] per-user TTL (ms)
-- ARGV[6] take record TTL (ms)   ARGV[7] the gate the order comes through
-- ARGV[8], ARGV[9], ARGV[10] only for the token gate's issue: the token's lifetime and the grace after it (ms), and
-- the most holds the item may have outstanding; the units are then held by the token ARGV[3] (its id, its order's
-- code) in stock:{item}:tokens, not yet an order
-- Returns strings: {'TAKEN', remaining, generation, load} | {'SOLD_OUT', remaining, generation} | {'UNKNOWN'}
--                | {'UNTRUSTED'} | {'LIMIT', remaining, generation, bought, limit} | {'REPLAY', first answer}
--                | {'WRONG_GATE', the item's gate}   a token's issue: {'TAKEN', remaining, generation, load, expires (ms)}
--                | {'KEY_UNVOUCHED'}: nothing taken; the database is asked for the key, then the take sent without KEYS[9]
--                | {'HOLDS_FULL', the bound, ms until the first hold expires}
local quantity = tonumber(ARGV[1])

-- a counter is trusted only in the life of the Redis data set that loaded it (life.lua): selling from one
-- restored stale could oversell
if redis.call('GET', KEYS[6]) ~= redis_life() then
  if redis.call('EXISTS', KEYS[1]) == 0 then
    return {'UNKNOWN'}
  end
  return {'UNTRUSTED'}
end

-- this order's take ran already (sent again after a timed-out reply, or by the client after a reconnect):
-- the same answer, taken once
local record = redis.call('GET', KEYS[4])
if record then
  local first = string.find(record, ':', 1, true)
  local second = string.find(record, ':', first + 1, true)
  return {'TAKEN', string.sub(record, 1, first - 1), string.sub(record, first + 1, second - 1),
          string.sub(record, second + 1)}
end

-- an item sold through another gate (a counter loaded before gates were recorded is the Redis gate's)
local gate = redis.call('GET', KEYS[7]) or 'redis'
if gate ~= ARGV[7] then
  return {'WRONG_GATE', gate}
end

if KEYS[8] then
  local first = redis.call('GET', KEYS[8])
  if first then
    return {'REPLAY', first}
  end
  -- Redis lost the item's keys within their lifetime: this key may have an order only the database remembers,
  -- which it must answer before the stock or the per-user limit refuses the buyer who has it
  if KEYS[9] and redis.call('EXISTS', KEYS[9]) == 1 then
    return {'KEY_UNVOUCHED'}
  end
end

local stock = redis.call('GET', KEYS[1])
if not stock then
  return {'UNKNOWN'}
end
stock = tonumber(stock)
-- which load of the counter the stock comes from: the order's transaction writes only if it is still the
-- database's (stock_item.load_epoch), and a give-back after a later load would count it twice. A counter
-- without a numeric load or a generation (evicted, or written by another version) is not sold from
local load = tonumber(redis.call('GET', KEYS[5]))
local generation = redis.call('GET', KEYS[2])
if not load or not generation then
  return {'UNTRUSTED'}
end
load = tostring(load)
if stock < quantity then
  return {'SOLD_OUT', tostring(stock), generation}
end

-- the per-user key carries the load, whose reload rebuilt it from the orders (a reset starts a new load, so
-- everyone starts from zero); it shares the item's hash tag, so it lives in the same cluster slot
local userKey
local limit = redis.call('GET', KEYS[3])
if limit then
  userKey = KEYS[1] .. ':e' .. load .. ':user:' .. ARGV[2]
  local bought = tonumber(redis.call('GET', userKey) or '0')
  if bought + quantity > tonumber(limit) then
    return {'LIMIT', tostring(stock), generation, tostring(bought), limit}
  end
end

-- the token gate's bound on holds outstanding, checked in the step that adds one
if ARGV[10] and redis.call('HLEN', KEYS[1] .. ':tokens') >= tonumber(ARGV[10]) then
  local now = redis.call('TIME')
  local first = redis.call('ZRANGE', KEYS[1] .. ':token-expiry', 0, 0, 'WITHSCORES')
  local wait = 0
  if first[2] then
    wait = math.max(0, tonumber(first[2]) - (tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)))
  end
  return {'HOLDS_FULL', ARGV[10], string.format('%d', wait)}
end

local remaining = redis.call('DECRBY', KEYS[1], quantity)
-- the take's record, remaining ':' generation ':' load, for a take of this order sent again; a give-back
-- deletes it, so that the same give-back sent twice gives once
redis.call('SET', KEYS[4], remaining .. ':' .. generation .. ':' .. load, 'PX', ARGV[6])
if userKey then
  redis.call('INCRBY', userKey, quantity)
  redis.call('PEXPIRE', userKey, ARGV[5])
end
if KEYS[8] then
  -- the user id goes last: it is the only part that may contain the separator
  local answer = ARGV[3] .. ':' .. quantity .. ':' .. remaining .. ':' .. generation .. ':' .. ARGV[2]
  redis.call('SET', KEYS[8], answer, 'PX', ARGV[4])
end
if ARGV[8] then
  -- the token gate's hold (io.flashstock.order.token.TokenHolds): 'i' (issued), quantity, generation, expiry (ms,
  -- Redis's clock, the only one that decides expiry), attempt (none yet), remaining, user (last: it may hold ':')
  local now = redis.call('TIME')
  local expires = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) + tonumber(ARGV[8])
  redis.call('HSET', KEYS[1] .. ':tokens', ARGV[3], 'i:' .. quantity .. ':' .. generation .. ':'
      .. string.format('%d', expires) .. ':0:' .. remaining .. ':' .. ARGV[2])
  redis.call('ZADD', KEYS[1] .. ':token-expiry', expires + tonumber(ARGV[9]), ARGV[3])
  return {'TAKEN', tostring(remaining), generation, load, string.format('%d', expires)}
end
return {'TAKEN', tostring(remaining), generation, load}
