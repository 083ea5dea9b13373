-- Empty one period of a board. KEYS: 1 def, 2 periods set, 3 zset, 4 entries,
-- 5 distinct, 6 counts. Returns {'nf'} or {'ok', members removed}.
if redis.call('EXISTS', KEYS[1]) == 0 then return {'nf'} end
local n = redis.call('ZCARD', KEYS[3])
redis.call('DEL', KEYS[3], KEYS[4], KEYS[5], KEYS[6])
redis.call('SREM', KEYS[2], KEYS[3])
return {'ok', n}
