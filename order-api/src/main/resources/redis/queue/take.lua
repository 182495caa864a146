-- The waiting room's order: the admission is checked and used in the same atomic step as take-stock.lua takes
-- the stock, so that an admission is used once and stock taken once, whatever the number of order-apis. Sent
-- as life.lua, common.lua, take-stock.lua wrapped in the function take_stock, then this.
-- KEYS: take-stock.lua's, then the ticket's hash last   ARGV: take-stock.lua's (ARGV[7] = 'queue')
-- Returns take-stock.lua's replies, {'SOLD_OUT', remaining, generation} for a ticket that learnt it was sold out,
-- {'REPLAY', first answer} for a ticket used already, or {'REFUSED', problem code, detail}.
local ticketKey = table.remove(KEYS)
local t = redis.call('HMGET', ticketKey, 'id', 'user', 'qty', 'gen', 'state', 'until', 'order', 'answer')
if not t[1] then
  return {'REFUSED', 'UNKNOWN_TICKET', 'no such ticket: it never existed or outlived its TTL'}
end
if t[2] ~= ARGV[2] or t[3] ~= ARGV[1] then
  return {'REFUSED', 'TICKET_MISMATCH', 'the ticket was issued for another user or quantity'}
end
local state = t[5]
if state == 'ORDERED' then
  if t[7] == ARGV[3] then
    -- this very order's take, sent again: take-stock.lua answers it from its record
    return take_stock()
  end
  return {'REPLAY', t[8]}
end
local generation = redis.call('GET', KEYS[2])
if t[4] ~= generation then
  return {'REFUSED', 'ADMISSION_EXPIRED', 'the item was reset since the ticket was issued'}
end
if state == 'WAITING' then
  return {'REFUSED', 'NOT_ADMITTED', 'the ticket is still waiting; poll it until it is admitted'}
end
if state == 'SOLD_OUT' then
  return {'SOLD_OUT', redis.call('GET', KEYS[1]) or '0', generation}
end
if state ~= 'ADMITTED' then
  return {'REFUSED', 'ADMISSION_EXPIRED', 'the admission ended unused'}
end
local queue = queue_of(KEYS[1], generation)
local member = admission_member(t[1], t[3])
if tonumber(t[6]) <= now_ms() then
  if redis.call('ZREM', queue .. ':admitted', member) == 1 then
    redis.call('DECRBY', queue .. ':admitted-units', t[3])
  end
  redis.call('HSET', ticketKey, 'state', 'EXPIRED')
  return {'REFUSED', 'ADMISSION_EXPIRED', 'the admission ended unused'}
end
local reply = take_stock()
if reply[1] == 'TAKEN' then
  if redis.call('ZREM', queue .. ':admitted', member) == 1 then
    redis.call('DECRBY', queue .. ':admitted-units', t[3])
  end
  -- the order's first answer, as an Idempotency-Key's (FirstAnswer): the ticket used again answers it
  redis.call('HSET', ticketKey, 'state', 'ORDERED', 'order', ARGV[3],
      'answer', ARGV[3] .. ':' .. ARGV[1] .. ':' .. reply[2] .. ':' .. reply[3] .. ':' .. ARGV[2])
end
return reply
