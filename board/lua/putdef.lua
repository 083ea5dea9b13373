-- Create (ARGV[5] 'create') or update ('update') a board definition.
-- KEYS: 1 def, 2 the board's generation counter, which outlives the board
-- (so a board deleted and made again never repeats a version a writer may
-- still hold). ARGV: 6.. field, value pairs.
-- Every write bumps the definition's version, which writers check inside their
-- scripts so that none applies a score with settings that have changed.
-- Returns {'ok', version}, {'exists'} or {'nf'}.
local exists = redis.call('EXISTS', KEYS[1]) == 1
if ARGV[5] == 'create' and exists then return {'exists'} end
if ARGV[5] == 'update' and not exists then return {'nf'} end
local args = {}
for i = 6, #ARGV do args[#args + 1] = ARGV[i] end
local version = redis.call('INCR', KEYS[2])
args[#args + 1] = 'version'
args[#args + 1] = version
redis.call('HSET', KEYS[1], unpack(args))
return {'ok', version}
