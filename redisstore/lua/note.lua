-- Note in a board's periods set the period zsets that exist in Redis but
-- that no write of the app noted: outside writers (a game server's ZINCRBY
-- or ZADD on lb:{b}:w:2026-W40) write only the zset. The archiver finds
-- closed periods in that set, copies them and sets them to expire, as it
-- does the app's own. A key whose period has expired (its archive state
-- says so) is not noted: if it has no TTL, an outside writer made it again
-- after the period left Redis; reads go to the archive, whose copy is
-- final, so it is set to expire again instead.
-- KEYS: 1 periods set, 2 archive state, 3.. the period zsets. ARGV (after
-- the prelude's 4): 5 ms to live for a key made again, 6.. each zset's
-- period label. Returns {noted, set to expire again}.
local noted, again = 0, 0
for i = 3, #KEYS do
  local z, label = KEYS[i], ARGV[i + 3]
  if redis.call('SISMEMBER', KEYS[1], z) == 0 and redis.call('TYPE', z)['ok'] == 'zset' then
    local st = redis.call('HGET', KEYS[2], label)
    if st and string.find(st, ' x', 1, true) then
      if redis.call('PTTL', z) == -1 then
        redis.call('PEXPIRE', z, ARGV[5])
        again = again + 1
      end
    else
      redis.call('SADD', KEYS[1], z)
      noted = noted + 1
    end
  end
end
return {noted, again}
