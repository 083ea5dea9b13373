-- Set a closed period's keys (its race too, lib/race.lua) to expire once the archive holds its final
-- copy, and forget the period in the periods set; reads then go to the
-- archive (redisstore/past.go). The archiver passes the period's archive state as
-- it read it before checking the archive: any change since (a removal, a
-- reset, another pass) leaves the keys alone.
-- KEYS: 1 archive (archive state), 2 periods, 3 zset, 4 entries, 5 distinct,
--   6 counts
-- ARGV: 1 label (the period's), 2 state (as read), 3 ttl (ms to live),
--   4 now (µs)
-- Returns 1 when set to expire, 0 when the state changed.
-- uses: base
local k_archive = KEYS[1]
local k_periods = KEYS[2]
local k_zset = KEYS[3]
local k_entries = KEYS[4]
local k_distinct = KEYS[5]
local k_counts = KEYS[6]
local a_label = ARGV[1]
local a_state = ARGV[2]
local a_ttl = ARGV[3]
local a_now = ARGV[4]
local v = redis.call('HGET', k_archive, a_label)
if v ~= a_state or string.find(v, ' x', 1, true) then return 0 end
for _, k in ipairs({k_zset, k_entries, k_distinct, k_counts, k_zset .. ':race'}) do redis.call('PEXPIRE', k, a_ttl) end
for _, k in ipairs(team_keys(k_zset)) do redis.call('PEXPIRE', k, a_ttl) end -- team standings go with it
for _, k in ipairs(segment_keys(k_zset)) do redis.call('PEXPIRE', k, a_ttl) end -- and segment standings
redis.call('SREM', k_periods, k_zset)
redis.call('HSET', k_archive, a_label, v .. ' x' .. a_now)
return 1
