-- Store a board's period schedule for FCALL podium_submit, which cannot
-- compute periods in a time zone itself. Written only for the definition
-- version it was computed from.
-- KEYS: 1 def, 2 sched
-- ARGV: 1 version (the definition's), 2.. field (field, value pairs)
-- Returns {'ok'} or {'stale'}.
local k_def = KEYS[1]
local k_sched = KEYS[2]
local a_version = ARGV[1]
local ARGV_FIXED = 1
local v = redis.call('HGET', k_def, 'version') or '0' -- '0': written before versions
if v ~= a_version then return {'stale'} end
redis.call('DEL', k_sched)
local args = {'version', a_version}
for i = ARGV_FIXED + 1, #ARGV do args[#args + 1] = ARGV[i] end
redis.call('HSET', k_sched, unpack(args))
return {'ok'}
