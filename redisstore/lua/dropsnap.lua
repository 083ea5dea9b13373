-- Drop an archive pass's snapshot (snapshot.lua) once that pass no longer
-- holds the lock it took the copy under: it died, or lost the lock and can
-- record nothing. A token is never reused, so a lock that is not the
-- owner's now never will be again. KEYS: 1 archive snapshots record, 2 the
-- period's archive lock, 3.. the snapshot's keys. ARGV (after the prelude's
-- 4): 5 the snapshot's key (its field in the record), 6 the record as read,
-- 7 its owner's token. Returns 1 when dropped, 0 when the owner still holds
-- the lock or the record changed.
if redis.call('HGET', KEYS[1], ARGV[5]) ~= ARGV[6] then return 0 end
if redis.call('GET', KEYS[2]) == ARGV[7] then return 0 end
for k = 3, #KEYS do redis.call('DEL', KEYS[k]) end
redis.call('HDEL', KEYS[1], ARGV[5])
return 1
