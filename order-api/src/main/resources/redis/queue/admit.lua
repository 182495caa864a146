-- One tick of an item's waiting room: expires the unused admissions that ended, then admits waiting tickets
-- first come, first served, never more units than the counter holds minus those of the unused admissions.
-- Runs once per tick across every order-api: the tick's lock (SET NX PX) is taken here, or nothing is done.
-- An item with nothing to tick is answered without a write, so that the scheduler stops ticking it at every tick
-- (until its next entry; io.flashstock.order.queue.AdmissionScheduler).
-- KEYS[1] stock:{item}   KEYS[2] stock:{item}:gen   KEYS[3] stock:{item}:in-doubt   KEYS[4] stock:{item}:gate
-- ARGV[1] most admissions per tick   ARGV[2] the tick's lock (ms)   ARGV[3] admission TTL (ms)
-- ARGV[4] ticket TTL (ms)   ARGV[5] most tickets dropped (sold out for them, or gone) per tick
-- ARGV[6] how long the ticket of an admission that ended unused is kept (ms)
-- Returns {'GONE'} (the item's gate is no longer queue: reset to another gate, or its keys are gone)
--       | {'IDLE'} (nobody waits and no admission is unused)   | {'BUSY'} (another order-api has this tick)
--       | {'DONE', admitted, expired, still waiting, units of unused admissions}
if (redis.call('GET', KEYS[4]) or 'redis') ~= 'queue' then
  return {'GONE'}
end
local generation = redis.call('GET', KEYS[2])
if not generation then
  return {'BUSY'}
end
local queue = queue_of(KEYS[1], generation)
local waitingKey = queue .. ':waiting'
local admittedKey = queue .. ':admitted'
local unitsKey = queue .. ':admitted-units'
if redis.call('ZCARD', waitingKey) == 0 and redis.call('ZCARD', admittedKey) == 0 then
  return {'IDLE'}
end
if not redis.call('SET', queue .. ':tick', '1', 'NX', 'PX', ARGV[2]) then
  return {'BUSY'}
end
local now = now_ms()
local units = tonumber(redis.call('GET', unitsKey) or '0')

local expired = 0
for _, member in ipairs(redis.call('ZRANGEBYSCORE', admittedKey, '-inf', now, 'LIMIT', 0, 1000)) do
  local separator = string.find(member, ':', 1, true)
  local id = string.sub(member, 1, separator - 1)
  local key = ticket_key(KEYS[1], id)
  redis.call('ZREM', admittedKey, member)
  units = units - tonumber(string.sub(member, separator + 1))
  if redis.call('HGET', key, 'state') == 'ADMITTED' then
    -- kept for its user's next polls only, and its user forgotten (they may enter again): admissions that cycle
    -- unused, round after round, would otherwise leave a ticket and a users entry each for the ticket TTL, past
    -- every bound of the room
    redis.call('HSET', key, 'state', 'EXPIRED')
    if redis.call('PTTL', key) > tonumber(ARGV[6]) then
      redis.call('PEXPIRE', key, ARGV[6])
    end
    local user = redis.call('HGET', key, 'user')
    if user and redis.call('HGET', queue .. ':users', user) == id then
      redis.call('HDEL', queue .. ':users', user)
    end
  end
  expired = expired + 1
end

local admitted = 0
local stock = tonumber(redis.call('GET', KEYS[1]) or '')
if stock then
  -- units that may still be sold: what orders in doubt hold may come back
  local left = stock + in_doubt_units(KEYS[3])
  local perTick, maxDropped, dropped = tonumber(ARGV[1]), tonumber(ARGV[5]), 0
  local admittedUntil = now + tonumber(ARGV[3])
  while admitted < perTick and dropped < maxDropped do
    local head = redis.call('ZRANGE', waitingKey, 0, 0)[1]
    if not head then
      break
    end
    local key = ticket_key(KEYS[1], head)
    local quantity = tonumber(redis.call('HGET', key, 'qty') or '')
    if not quantity then
      -- the ticket outlived its TTL
      redis.call('ZREM', waitingKey, head)
      dropped = dropped + 1
    elseif quantity > left then
      -- what is left cannot serve it, whatever admissions expire: sold out for this ticket, for good
      redis.call('ZREM', waitingKey, head)
      redis.call('HSET', key, 'state', 'SOLD_OUT')
      dropped = dropped + 1
    elseif quantity > stock - units then
      -- the units it needs are held by unused admissions: it waits at the head until they are used or expire
      break
    else
      redis.call('ZREM', waitingKey, head)
      redis.call('ZADD', admittedKey, admittedUntil, admission_member(head, quantity))
      redis.call('HSET', key, 'state', 'ADMITTED', 'until', tostring(admittedUntil))
      redis.call('PEXPIRE', key, ARGV[4])
      units = units + quantity
      admitted = admitted + 1
    end
  end
end
if admitted > 0 or expired > 0 then
  redis.call('SET', unitsKey, tostring(units), 'PX', ARGV[4])
  redis.call('PEXPIRE', admittedKey, ARGV[4])
end
if admitted > 0 then
  -- the users hash (one ticket per user) lives as long as the tickets it names: an admission extends its ticket,
  -- so it extends the hash too, or the user could enter again once the hash expired under a live ticket
  redis.call('PEXPIRE', queue .. ':users', ARGV[4])
end
return {'DONE', tostring(admitted), tostring(expired), tostring(redis.call('ZCARD', waitingKey)), tostring(units)}
