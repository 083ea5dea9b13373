-- Drop an archive pass's snapshot (snapshot.lua) once that pass no longer
-- holds the lock it took the copy under: it died, or lost the lock and can
-- record nothing. A token is never reused, so a lock that is not the
-- owner's now never will be again.
-- KEYS: 1 snaps (the archive snapshots record), 2 lock (the period's archive
--   lock), 3.. snapshot (the snapshot's keys)
-- ARGV: 1 snap (the snapshot's key: its field in the record), 2 record (as
--   read), 3 owner (its owner's token)
-- Returns 1 when dropped, 0 when the owner still holds the lock or the
-- record changed.
local k_snaps = KEYS[1]
local k_lock = KEYS[2]
local KEYS_FIXED = 2
local a_snap = ARGV[1]
local a_record = ARGV[2]
local a_owner = ARGV[3]
if redis.call('HGET', k_snaps, a_snap) ~= a_record then return 0 end
if redis.call('GET', k_lock) == a_owner then return 0 end
for k = KEYS_FIXED + 1, #KEYS do redis.call('DEL', KEYS[k]) end
redis.call('HDEL', k_snaps, a_snap)
return 1
