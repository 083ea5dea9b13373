-- Finish a member's erasure (redisstore/erase.go): once every part is done,
-- its record keeps no pseudonym, only that the id was erased, so a second
-- erasure of the id answers "already erased". A record that changed since
-- (a new erasure of the id) is left alone.
-- KEYS: 1 erasures (the board's erasure records)
-- ARGV: 1 digest (the member's record), 2 pending (the record as the
--   erasure read it), 3 done (the record to leave)
-- Returns 1 when recorded, 0 when the record changed.
local k_erasures = KEYS[1]
local a_digest = ARGV[1]
local a_pending = ARGV[2]
local a_done = ARGV[3]
if redis.call('HGET', k_erasures, a_digest) ~= a_pending then return 0 end
redis.call('HSET', k_erasures, a_digest, a_done)
return 1
