-- Create or update a board definition. Every write bumps the definition's
-- version, which writers check inside their scripts so that none applies a
-- score with settings that have changed.
-- KEYS: 1 def, 2 gen (the board's generation counter, which outlives the
--   board, so a board deleted and made again never repeats a version a
--   writer may still hold)
-- ARGV: 1 mode ('create' or 'update'), 2.. field (field, value pairs)
-- Returns {'ok', version, freeze_at ('' none: see freeze.lua, which alone
-- writes it)}, {'exists'} or {'nf'}.
local k_def = KEYS[1]
local k_gen = KEYS[2]
local a_mode = ARGV[1]
local ARGV_FIXED = 1
local exists = redis.call('EXISTS', k_def) == 1
if a_mode == 'create' and exists then return {'exists'} end
if a_mode == 'update' and not exists then return {'nf'} end
local args = {}
for i = ARGV_FIXED + 1, #ARGV do args[#args + 1] = ARGV[i] end
-- Past every version the board has had: its counter, and the definition's
-- own field (boards made before the counter existed have only that).
local version = redis.call('INCR', k_gen)
local stored = tonumber(redis.call('HGET', k_def, 'version') or '0') or 0
if version <= stored then
  version = stored + 1
  redis.call('SET', k_gen, version)
end
args[#args + 1] = 'version'
args[#args + 1] = version
redis.call('HSET', k_def, unpack(args))
return {'ok', version, redis.call('HGET', k_def, 'freeze_at') or ''}
