-- Note in a board's periods set the period zsets that exist in Redis but
-- that no write of the app noted: outside writers (a game server's ZINCRBY
-- or ZADD on lb:{b}:w:2026-W40) write only the zset. The archiver finds
-- closed periods in that set, copies them and sets them to expire, as it
-- does the app's own. A key whose period has expired (its archive state
-- says so) is not noted: if it has no TTL, an outside writer made it again
-- after the period left Redis; reads go to the archive, whose copy is
-- final, so it is set to expire again instead.
-- KEYS: 1 periods, 2 archive (archive state), 3.. zset (the period zsets)
-- ARGV: 1 ttl (ms to live for a key made again), 2.. label (each zset's
--   period label)
-- Returns {noted, set to expire again}.
local k_periods = KEYS[1]
local k_archive = KEYS[2]
local a_ttl = ARGV[1]
local KEYS_FIXED = 2
local ARGV_FIXED = 1
local noted, again = 0, 0
for i = 1, #KEYS - KEYS_FIXED do
  local z, label = KEYS[KEYS_FIXED + i], ARGV[ARGV_FIXED + i]
  if redis.call('SISMEMBER', k_periods, z) == 0 and redis.call('TYPE', z)['ok'] == 'zset' then
    local st = redis.call('HGET', k_archive, label)
    if st and string.find(st, ' x', 1, true) then
      if redis.call('PTTL', z) == -1 then
        redis.call('PEXPIRE', z, a_ttl)
        again = again + 1
      end
    else
      redis.call('SADD', k_periods, z)
      noted = noted + 1
    end
  end
end
return {noted, again}
