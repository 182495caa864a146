-- Holds an order in doubt (io.flashstock.order.placement.gate.InDoubtEntry): its entry, stamped with Redis's clock, so
-- that every order-api judges its age by the same clock.
-- KEYS[1] stock:{item}:in-doubt   ARGV[1] order code   ARGV[2] the entry before its time   ARGV[3] the entry after it
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
return redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ':' .. string.format('%d', now) .. ':' .. ARGV[3])
