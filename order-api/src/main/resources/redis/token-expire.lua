-- Gives back the units of the item's tokens that expired unused (io.flashstock.order.token.TokenHolds): each in
-- one atomic step that deletes the hold it gives back, so any number of sweepers give each once.
-- KEYS[1] stock:{item}   KEYS[2] stock:{item}:gen   KEYS[3] stock:{item}:load   KEYS[4] stock:{item}:tokens
-- KEYS[5] stock:{item}:token-expiry (score: expiry + grace, ms)
-- ARGV[1] the most holds looked at   ARGV[2] how long an attempt may order before it counts as abandoned (ms)
-- Returns {holds given back, units given back, holds looked at, abandoned attempts: token id, attempt, ...}
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local due = redis.call('ZRANGEBYSCORE', KEYS[5], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
local generation = redis.call('GET', KEYS[2])
local load = redis.call('GET', KEYS[3])
local counted = redis.call('EXISTS', KEYS[1]) == 1 and load
local given, units = 0, 0
local result = {}
for _, id in ipairs(due) do
  local entry = redis.call('HGET', KEYS[4], id)
  if not entry then
    redis.call('ZREM', KEYS[5], id)
  else
    local state, qty, gen, attempt, user = string.match(entry, '^(%a):(%d+):(%d+):%d+:(%d+):%-?%d+:(.*)$')
    if state == 'i' then
      redis.call('HDEL', KEYS[4], id)
      redis.call('ZREM', KEYS[5], id)
      -- a hold of a replaced generation, or of a counter Redis lost, is in no count: nothing to give back to
      if gen == generation and counted then
        redis.call('INCRBY', KEYS[1], qty)
        local userKey = KEYS[1] .. ':e' .. load .. ':user:' .. user
        if redis.call('EXISTS', userKey) == 1 then
          redis.call('DECRBY', userKey, qty)
        end
        given = given + 1
        units = units + tonumber(qty)
      end
    else
      -- an attempt is writing its order: looked at again later, and named if it has outlived its deadline
      redis.call('ZADD', KEYS[5], now + tonumber(ARGV[2]), id)
      if now - tonumber(attempt) > tonumber(ARGV[2]) then
        table.insert(result, id)
        table.insert(result, attempt)
      end
    end
  end
end
if given > 0 then
  -- every order-api forgets that the item was sold out (io.flashstock.order.placement.RefusalMemory)
  redis.call('PUBLISH', 'stock:raised', KEYS[1])
end
local answer = {tostring(given), tostring(units), tostring(#due)}
for _, v in ipairs(result) do
  table.insert(answer, v)
end
return answer
