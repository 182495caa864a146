-- The waiting room's give-back: give-back.lua (wrapped in the function give_back) and, in the same step, the
-- admission the order used is restored, so that its user may retry while it lasts. Sent as common.lua,
-- give-back.lua wrapped, then this.
-- KEYS: give-back.lua's, then the ticket's hash last   ARGV: give-back.lua's (ARGV[4] the order code)
-- Returns give-back.lua's reply.
local ticketKey = table.remove(KEYS)
local given = give_back()
local t = redis.call('HMGET', ticketKey, 'id', 'qty', 'gen', 'state', 'until', 'order')
if t[4] == 'ORDERED' and t[6] == ARGV[4] then
  local queue = queue_of(KEYS[1], t[3])
  redis.call('HDEL', ticketKey, 'order', 'answer')
  if tonumber(t[5]) > now_ms() then
    if redis.call('ZADD', queue .. ':admitted', t[5], admission_member(t[1], t[2])) == 1 then
      redis.call('INCRBY', queue .. ':admitted-units', t[2])
    end
    -- keys the restore made anew live as long as the ticket, as the admit script's do
    local ttl = redis.call('PTTL', ticketKey)
    for _, key in ipairs({queue .. ':admitted', queue .. ':admitted-units'}) do
      if ttl > 0 and redis.call('PTTL', key) == -1 then
        redis.call('PEXPIRE', key, ttl)
      end
    end
    redis.call('HSET', ticketKey, 'state', 'ADMITTED')
  else
    redis.call('HSET', ticketKey, 'state', 'EXPIRED')
  end
end
return given
