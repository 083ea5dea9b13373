-- Register a hook if its board still exists and has room for one more.
-- KEYS: 1 the board's hooks hash, 2 its delivery queue, 3 its definition.
-- ARGV: 1 hook id, 2 registration JSON, 3 most hooks a board may have, 4 consumer group.
-- Returns 1, 0 when the board has its most, -1 when it was deleted: a
-- board's deletion takes its hooks in one step, and none may follow it.
-- The group reads the queue from its start, so nothing queued before it existed is missed.
if redis.call('EXISTS', KEYS[3]) == 0 then return -1 end
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.pcall('XGROUP', 'CREATE', KEYS[2], ARGV[4], '0', 'MKSTREAM') -- BUSYGROUP: it exists
return 1
