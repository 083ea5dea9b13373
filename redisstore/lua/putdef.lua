-- Create (ARGV[5] 'create') or update ('update') a board definition.
-- KEYS: 1 def, 2 the board's generation counter, which outlives the board
-- (so a board deleted and made again never repeats a version a writer may
-- still hold). ARGV: 6.. field, value pairs.
-- Every write bumps the definition's version, which writers check inside their
-- scripts so that none applies a score with settings that have changed.
-- Returns {'ok', version, freeze_at ('' none: see freeze.lua, which alone
-- writes it)}, {'exists'} or {'nf'}.
local exists = redis.call('EXISTS', KEYS[1]) == 1
if ARGV[5] == 'create' and exists then return {'exists'} end
if ARGV[5] == 'update' and not exists then return {'nf'} end
local args = {}
for i = 6, #ARGV do args[#args + 1] = ARGV[i] end
-- Past every version the board has had: its counter, and the definition's
-- own field (boards made before the counter existed have only that).
local version = redis.call('INCR', KEYS[2])
local stored = tonumber(redis.call('HGET', KEYS[1], 'version') or '0') or 0
if version <= stored then
  version = stored + 1
  redis.call('SET', KEYS[2], version)
end
args[#args + 1] = 'version'
args[#args + 1] = version
redis.call('HSET', KEYS[1], unpack(args))
return {'ok', version, redis.call('HGET', KEYS[1], 'freeze_at') or ''}
