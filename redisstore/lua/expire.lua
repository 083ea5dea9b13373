-- Set a closed period's keys to expire once the archive holds its final
-- copy, and forget the period in the periods set; reads then go to the
-- archive (redisstore/past.go). The archiver passes the period's archive state as
-- it read it before checking the archive: any change since (a removal, a
-- reset, another pass) leaves the keys alone. KEYS: 1 archive state, 2
-- periods set, 3 zset, 4 entries, 5 distinct, 6 counts. ARGV (after the
-- prelude's 4): 5 period label, 6 state read, 7 ms to live, 8 now (µs).
-- Returns 1 when set to expire, 0 when the state changed.
-- uses: base
local v = redis.call('HGET', KEYS[1], ARGV[5])
if v ~= ARGV[6] or string.find(v, ' x', 1, true) then return 0 end
for k = 3, 6 do redis.call('PEXPIRE', KEYS[k], ARGV[7]) end
for _, k in ipairs(team_keys(KEYS[3])) do redis.call('PEXPIRE', k, ARGV[7]) end -- team standings go with it
redis.call('SREM', KEYS[2], KEYS[3])
redis.call('HSET', KEYS[1], ARGV[5], v .. ' x' .. ARGV[8])
return 1
