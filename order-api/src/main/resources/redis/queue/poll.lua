-- What a ticket says now, computed from the queue and the counter (nothing is written): O(log n).
-- KEYS[1] stock:{item}   KEYS[2] stock:{item}:gen   KEYS[3] stock:{item}:in-doubt   KEYS[4] the ticket's hash
-- Returns {state, user id, quantity, position, admitted until (ms), order code}, '' where a field does not
-- apply; state 'UNKNOWN' for no such ticket.
local t = redis.call('HMGET', KEYS[4], 'id', 'qty', 'gen', 'state', 'until', 'order', 'user')
if not t[1] then
  return {'UNKNOWN', '', '', '', '', ''}
end
local function answer(state, position, admittedUntil, order)
  return {state, t[7], t[2], position, admittedUntil, order}
end
local state = t[4]
if state == 'ORDERED' then
  return answer('ORDERED', '', '', t[6])
end
if t[3] ~= redis.call('GET', KEYS[2]) then
  -- the item was reset since: that sale and its queue are over
  return answer('EXPIRED', '', '', '')
end
if state == 'WAITING' then
  local rank = redis.call('ZRANK', queue_of(KEYS[1], t[3]) .. ':waiting', t[1])
  local stock = redis.call('GET', KEYS[1])
  -- the sell-out notice, to every waiting ticket at once: the units not yet sold (unused admissions hold none of
  -- them) and those orders in doubt may give back cannot serve it any more. A missing counter is being rebuilt
  if not rank then
    return answer('EXPIRED', '', '', '')
  end
  if stock and tonumber(stock) + in_doubt_units(KEYS[3]) < tonumber(t[2]) then
    return answer('SOLD_OUT', '', '', '')
  end
  return answer('WAITING', tostring(rank + 1), '', '')
end
if state == 'ADMITTED' then
  if tonumber(t[5]) <= now_ms() then
    return answer('EXPIRED', '', '', '')
  end
  return answer('ADMITTED', '', t[5], '')
end
return answer(state, '', '', '')
