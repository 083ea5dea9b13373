-- Set a member's display name and its entry in the name index.
-- KEYS: 1 def, 2 names, 3 names:lc, 4 names:idx. ARGV: 5 id, 6 name, 7 lower-cased name.
-- Returns {'nf'} or {'ok', previous name or false}.
if redis.call('EXISTS', KEYS[1]) == 0 then return {'nf'} end
local id, name, lower = ARGV[5], ARGV[6], ARGV[7]
local prev = redis.call('HGET', KEYS[2], id)
local oldlower = redis.call('HGET', KEYS[3], id)
if oldlower then redis.call('ZREM', KEYS[4], oldlower .. '\0' .. id) end
redis.call('HSET', KEYS[2], id, name)
redis.call('HSET', KEYS[3], id, lower)
redis.call('ZADD', KEYS[4], 0, lower .. '\0' .. id)
return {'ok', prev}
