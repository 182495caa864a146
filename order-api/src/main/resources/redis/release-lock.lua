-- Releases a lock taken with SET NX PX, only if it is still the caller's (it may have expired and been taken
-- by another since). KEYS[1] the lock   ARGV[1] the caller's token
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
