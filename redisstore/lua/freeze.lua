-- Freeze a board's public standings, lift the freeze, or take a freeze whose
-- time has come (redisstore/freeze.go).
-- KEYS: 1 def, 2 the board's generation counter, 3 freeze marker.
-- ARGV (after the prelude's 4): 5 mode ('freeze', 'unfreeze' or 'take'),
--   6 now (µs), then for freeze: 7 at (µs), 8 the keys to copy at the freeze
--   ('<live zset> <frozen zset> ...'); for unfreeze: 7 ms the frozen keys
--   stay readable (a replica whose cached definition still says frozen reads
--   them for up to a second).
-- freeze and unfreeze change the definition's freeze_at and bump its version,
-- so every writer and the live hub learn of it. Returns {'nf'} (no board),
-- {'frozen', at} (freeze: already frozen), {'none'} (unfreeze: not frozen),
-- {'ok', version, state} (state: take's answer), or take's {state, at}.
-- uses: freeze
if redis.call('EXISTS', KEYS[1]) == 0 then return {'nf'} end
local mode, now = ARGV[5], ARGV[6]
if mode == 'take' then return {freeze_take(KEYS[3], now)} end

local function bump()
  local version = redis.call('INCR', KEYS[2])
  local stored = tonumber(redis.call('HGET', KEYS[1], 'version') or '0') or 0
  if version <= stored then
    version = stored + 1
    redis.call('SET', KEYS[2], version)
  end
  redis.call('HSET', KEYS[1], 'version', version)
  return version
end

local state = freeze_take(KEYS[3], now)
if mode == 'freeze' then
  if state == 'taken' or state == 'took' then
    return {'frozen', redis.call('HGET', KEYS[3], 'at')}
  end
  redis.call('DEL', KEYS[3])
  redis.call('HSET', KEYS[3], 'at', ARGV[7], 'keys', ARGV[8])
  redis.call('HSET', KEYS[1], 'freeze_at', ARGV[7])
  local v = bump()
  return {'ok', v, (freeze_take(KEYS[3], now))}
end

if mode == 'unfreeze' then
  if state == 'none' then
    if (redis.call('HGET', KEYS[1], 'freeze_at') or '') == '' then return {'none'} end
  else
    local keys = redis.call('HGET', KEYS[3], 'keys') or ''
    for _, dst in string.gmatch(keys, '(%S+) (%S+)') do
      for _, sfx in ipairs(FROZEN_SUFFIXES) do redis.call('PEXPIRE', dst .. sfx, ARGV[7]) end
    end
    frozen_teams_expire(string.match(KEYS[1], '^(lb:{[^}]*})'), ARGV[7])
    frozen_board_expire(string.match(KEYS[1], '^(lb:{[^}]*})'), ARGV[7])
    redis.call('DEL', KEYS[3])
  end
  redis.call('HDEL', KEYS[1], 'freeze_at')
  local v = bump()
  return {'ok', v, state}
end
return redis.error_reply('freeze: unknown mode ' .. tostring(mode))
