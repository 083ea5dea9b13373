-- Freeze a board's public standings, lift the freeze, or take a freeze whose
-- time has come (redisstore/freeze.go).
-- KEYS: 1 def, 2 gen (the board's generation counter), 3 freeze (the marker)
-- ARGV: 1 mode ('freeze', 'unfreeze', 'reveal' or 'take'), 2 now (µs)
-- ARGV for freeze: 1 at (µs), 2 copies (the keys to copy at the freeze:
--   '<live zset> <frozen zset> ...')
-- ARGV for unfreeze: 1 linger (ms the frozen keys stay readable: a replica
--   whose cached definition still says frozen reads them for up to a second),
--   2 reveal (the reveal_at the scheduler lifts it for: {'none'} unless the
--   definition still says so; '' lifts any freeze)
-- ARGV for reveal: 1 at (µs the freeze lifts on its own; '' never)
-- freeze and unfreeze change the definition's freeze_at and bump its version,
-- so every writer and the live hub learn of it. Returns {'nf'} (no board),
-- {'frozen', at} (freeze: already frozen), {'none'} (unfreeze: not frozen),
-- {'ok', version, state} (state: take's answer), or take's {state, at};
-- reveal sets the definition's reveal_at ({'none'} without a freeze).
-- uses: base, freeze
local k_def = KEYS[1]
local k_gen = KEYS[2]
local k_freeze = KEYS[3]
local a_mode = ARGV[1]
local a_now = ARGV[2]
local ARGV_FIXED = 2
local ARGV_FOR_FREEZE = {'at', 'copies'}
local ARGV_FOR_UNFREEZE = {'linger', 'reveal'}
local ARGV_FOR_REVEAL = {'at'}
if redis.call('EXISTS', k_def) == 0 then return {'nf'} end
local mode, now = a_mode, a_now
if mode == 'take' then return {freeze_take(k_freeze, now)} end

local function bump()
  local version = redis.call('INCR', k_gen)
  local stored = tonumber(redis.call('HGET', k_def, 'version') or '0') or 0
  if version <= stored then
    version = stored + 1
    redis.call('SET', k_gen, version)
  end
  redis.call('HSET', k_def, 'version', version)
  return version
end

local state = freeze_take(k_freeze, now)
if mode == 'freeze' then
  if state == 'taken' or state == 'took' then
    return {'frozen', redis.call('HGET', k_freeze, 'at')}
  end
  local a = part_at(ARGV, ARGV_FIXED, ARGV_FOR_FREEZE, 1)
  redis.call('DEL', k_freeze)
  redis.call('HSET', k_freeze, 'at', a.at, 'keys', a.copies)
  redis.call('HSET', k_def, 'freeze_at', a.at)
  redis.call('HDEL', k_def, 'reveal_at') -- a new freeze reveals when told
  local v = bump()
  return {'ok', v, (freeze_take(k_freeze, now))}
end

if mode == 'unfreeze' then
  local u = part_at(ARGV, ARGV_FIXED, ARGV_FOR_UNFREEZE, 1)
  local linger = u.linger
  if u.reveal ~= '' and redis.call('HGET', k_def, 'reveal_at') ~= u.reveal then return {'none'} end
  if state == 'none' then
    if (redis.call('HGET', k_def, 'freeze_at') or '') == '' then return {'none'} end
  else
    local keys = redis.call('HGET', k_freeze, 'keys') or ''
    for _, dst in string.gmatch(keys, '(%S+) (%S+)') do
      for _, sfx in ipairs(FROZEN_SUFFIXES) do redis.call('PEXPIRE', dst .. sfx, linger) end
      for _, k in ipairs(segment_keys(dst)) do redis.call('PEXPIRE', k, linger) end
    end
    frozen_teams_expire(string.match(k_def, '^(lb:{[^}]*})'), linger)
    frozen_board_expire(string.match(k_def, '^(lb:{[^}]*})'), linger)
    redis.call('DEL', k_freeze)
  end
  redis.call('HDEL', k_def, 'freeze_at', 'reveal_at')
  local v = bump()
  return {'ok', v, state}
end

if mode == 'reveal' then
  if (redis.call('HGET', k_def, 'freeze_at') or '') == '' then return {'none'} end
  local at = part_at(ARGV, ARGV_FIXED, ARGV_FOR_REVEAL, 1).at
  if at == '' then redis.call('HDEL', k_def, 'reveal_at') else redis.call('HSET', k_def, 'reveal_at', at) end
  local v = bump()
  return {'ok', v, state}
end
return redis.error_reply('freeze: unknown mode ' .. tostring(mode))
