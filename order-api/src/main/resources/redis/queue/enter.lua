-- A user enters an item's waiting room: one ticket per user, item and sale (generation), and at most so many
-- tickets waiting: the bound is checked in the step that adds the ticket, so no number of order-apis entering at
-- once passes it, and a refused entry stores nothing.
-- KEYS[1] stock:{item}   KEYS[2] stock:{item}:gen   KEYS[3] stock:{item}:gate   KEYS[4] stock:{item}:in-doubt
-- KEYS[5] the new ticket's hash
-- ARGV[1] user id   ARGV[2] quantity   ARGV[3] ticket id   ARGV[4] ticket TTL (ms)
-- ARGV[5] most tickets waiting   ARGV[6] most tickets waiting per unit left
-- Returns {'WAITING', position, generation} | {'UNKNOWN'} | {'WRONG_GATE', gate} | {'ALREADY_QUEUED', state}
--       | {'SOLD_OUT', remaining} | {'QUEUE_FULL', the bound, ms until a place may free}
local stock = redis.call('GET', KEYS[1])
local generation = redis.call('GET', KEYS[2])
if not stock or not generation then
  return {'UNKNOWN'}
end
local gate = redis.call('GET', KEYS[3]) or 'redis'
if gate ~= 'queue' then
  return {'WRONG_GATE', gate}
end
local queue = queue_of(KEYS[1], generation)
local users = queue .. ':users'
local held = redis.call('HGET', users, ARGV[1])
if held then
  -- an unused admission that expired gives its user a place at the back; any other ticket is still theirs. An
  -- admission past its end counts as expired before a tick says so: an item nobody waits for is not ticked
  local state, admittedUntil = unpack(redis.call('HMGET', ticket_key(KEYS[1], held), 'state', 'until'))
  if state == 'ADMITTED' and tonumber(admittedUntil) <= now_ms() then
    state = 'EXPIRED'
  end
  if state and state ~= 'EXPIRED' then
    return {'ALREADY_QUEUED', state}
  end
end
local left = tonumber(stock) + in_doubt_units(KEYS[4])
if left < tonumber(ARGV[2]) then
  return {'SOLD_OUT', stock}
end
local waiting = queue .. ':waiting'
local bound = math.min(tonumber(ARGV[5]), tonumber(ARGV[6]) * left)
if redis.call('ZCARD', waiting) >= bound then
  -- a place frees when the head is admitted: at the next tick while units are free of unused admissions, else
  -- once the first of those ends (used or not)
  local wait = 0
  if tonumber(stock) <= tonumber(redis.call('GET', queue .. ':admitted-units') or '0') then
    local first = redis.call('ZRANGE', queue .. ':admitted', 0, 0, 'WITHSCORES')
    if first[2] then
      wait = math.max(0, tonumber(first[2]) - now_ms())
    end
  end
  return {'QUEUE_FULL', string.format('%d', bound), string.format('%d', wait)}
end
local seq = redis.call('INCR', queue .. ':seq')
redis.call('ZADD', waiting, seq, ARGV[3])
redis.call('HSET', users, ARGV[1], ARGV[3])
redis.call('HSET', KEYS[5], 'id', ARGV[3], 'user', ARGV[1], 'qty', ARGV[2], 'gen', generation, 'state', 'WAITING')
redis.call('PEXPIRE', KEYS[5], ARGV[4])
for _, key in ipairs({queue .. ':seq', waiting, users}) do
  redis.call('PEXPIRE', key, ARGV[4])
end
return {'WAITING', tostring(redis.call('ZRANK', waiting, ARGV[3]) + 1), generation}
