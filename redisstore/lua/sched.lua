-- Store a board's period schedule for FCALL podium_submit, which cannot
-- compute periods in a time zone itself. Written only for the definition
-- version it was computed from.
-- KEYS: 1 def, 2 sched. ARGV (after the prelude's 4): 5 version, then field,
-- value pairs. Returns {'ok'} or {'stale'}.
local v = redis.call('HGET', KEYS[1], 'version') or '0' -- '0': written before versions
if v ~= ARGV[5] then return {'stale'} end
redis.call('DEL', KEYS[2])
local args = {'version', ARGV[5]}
for i = 6, #ARGV do args[#args + 1] = ARGV[i] end
redis.call('HSET', KEYS[2], unpack(args))
return {'ok'}
