-- Sets an item's counter, generation and per-user limit together (stock reset, reload, warm-up), under the
-- load epoch the database recorded for this load (stock_item.load_epoch), and marks the counter as loaded in
-- the life of this Redis data set (life.lua).
-- KEYS[1] stock:{item}   KEYS[2] stock:{item}:gen   KEYS[3] stock:{item}:limit   KEYS[4] stock:{item}:in-doubt
-- KEYS[5] stock:{item}:load   KEYS[6] stock:{item}:life   KEYS[7] stock:{item}:gate
-- ARGV[1] units left, '' for no counter (the item's gate is the database)   ARGV[2] generation
-- ARGV[3] per-user limit, '' for none   ARGV[4] the load epoch   ARGV[5] the item's gate
-- ARGV[6] per-user TTL (ms)   ARGV[7..] codes of committed orders whose token may still hold units (token gate)
-- Returns 1 when applied, 0 when Redis holds this load or a later one already (a later reset or reload won
-- the race: epochs only grow, resets included).
if tonumber(ARGV[4]) <= (tonumber(redis.call('GET', KEYS[5]) or '') or -1) then
  return 0
end
-- the token gate's holds (stock:{item}:tokens, io.flashstock.order.token.TokenHolds): units of tokens issued and
-- not yet orders are in no order, so the counter is loaded without them, here, atomically, since the old counter
-- may have issued tokens until now. A hold of another generation is void (a reset); a hold whose order the
-- database has (ARGV[7..], checked after the fence) is that order, counted in ARGV[1] already; a hold of the
-- generation counts, and so for its user's limit
local held = 0
local tokens = KEYS[1] .. ':tokens'
local committed = {}
for i = 7, #ARGV do
  committed[ARGV[i]] = true
end
local entries = redis.call('HGETALL', tokens)
for i = 1, #entries, 2 do
  local qty, gen, user = string.match(entries[i + 1], '^%a:(%d+):(%d+):%d+:%d+:%-?%d+:(.*)$')
  if ARGV[1] == '' or gen ~= ARGV[2] or committed[entries[i]] then
    redis.call('HDEL', tokens, entries[i])
    redis.call('ZREM', KEYS[1] .. ':token-expiry', entries[i])
  else
    held = held + tonumber(qty)
    if ARGV[3] ~= '' then
      local userKey = KEYS[1] .. ':e' .. ARGV[4] .. ':user:' .. user
      redis.call('INCRBY', userKey, qty)
      redis.call('PEXPIRE', userKey, ARGV[6])
    end
  end
end
if ARGV[1] == '' then
  -- the epoch stays, so that a late load of an older reset cannot bring a counter back
  redis.call('DEL', KEYS[1], KEYS[7])
else
  redis.call('SET', KEYS[1], string.format('%d', tonumber(ARGV[1]) - held))
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
-- every order-api forgets what it knew of the item's sell-out, gate or existence
-- (io.flashstock.order.placement.RefusalMemory)
redis.call('PUBLISH', 'stock:raised', KEYS[1])
return 1
