-- Record a delivery attempt in its hook's log, if the hook is still
-- registered (one deleted meanwhile, or whose board was, gets no log back),
-- and take the entry off the pending list unless it is to be retried.
-- KEYS: 1 the board's hooks hash, 2 the hook's log, 3 the delivery queue.
-- ARGV: 1 hook id ('' when it was deleted), 2 attempt JSON ('' for none),
-- 3 attempts kept, 4 the log's lifetime (seconds), 5 consumer group,
-- 6 queue entry id, 7 '1' to acknowledge it.
if ARGV[2] ~= '' and ARGV[1] ~= '' and redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  redis.call('LPUSH', KEYS[2], ARGV[2])
  redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[3]) - 1)
  redis.call('EXPIRE', KEYS[2], ARGV[4])
end
if ARGV[7] == '1' then redis.call('XACK', KEYS[3], ARGV[5], ARGV[6]) end
return 1
