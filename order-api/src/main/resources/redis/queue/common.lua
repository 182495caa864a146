-- What the waiting room's scripts share; prepended to each of them (a script sent to Redis cannot load another).
-- The queue of an item lives beside its counter, under the same hash tag, one queue per stock generation (a reset
-- starts a new sale, and with it a new queue): stock:{item}:queue:{generation}:…  Its tickets are hashes
-- stock:{item}:queue:ticket:{id} with the fields id, user, qty, gen, state (WAITING, ADMITTED, ORDERED,
-- SOLD_OUT, EXPIRED), until (admission end, ms), order and answer (once ORDERED).
local function queue_of(counter, generation)
  return counter .. ':queue:' .. generation
end

local function ticket_key(counter, id)
  return counter .. ':queue:ticket:' .. id
end

-- an unused admission in stock:{item}:queue:{generation}:admitted, scored by its end: the ticket and its units,
-- so that expiring it needs nothing else
local function admission_member(id, quantity)
  return id .. ':' .. quantity
end

-- units held by orders whose commit is in doubt: they may come back to the counter. Each entry starts with its
-- units (io.flashstock.order.placement.gate.InDoubtEntry)
local function in_doubt_units(key)
  local sum = 0
  for _, entry in ipairs(redis.call('HVALS', key)) do
    sum = sum + tonumber(string.match(entry, '^%d+'))
  end
  return sum
end

-- Redis's own clock, so that every order-api agrees on when an admission ends
local function now_ms()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
