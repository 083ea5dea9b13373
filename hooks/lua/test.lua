-- Queue a test event ("ping") for one hook, if it is still registered: a
-- board deleted meanwhile (and its hooks, counter and queue with it) gets
-- no counter or queue back.
-- KEYS: 1 the board's hooks hash, 2 its event counter, 3 its delivery queue.
-- ARGV: 1 hook id, 2 board id, 3 now (Unix ms), 4 queue cap.
-- Returns the event id, or false when the hook is gone.
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return false end
local id = ARGV[2] .. '-' .. redis.call('INCR', KEYS[2])
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[4], '*', 'hook', ARGV[1], 'event', id, 'type', 'ping', 'at', ARGV[3])
return id
