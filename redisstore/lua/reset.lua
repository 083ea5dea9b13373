-- Empty one period of a board (its race too, lib/race.lua), and record it in the board's audit log in
-- the same step. An archived copy of the period is marked changed: the
-- archiver drops it.
-- KEYS: 1 def, 2 periods, 3 zset, 4 entries, 5 distinct, 6 counts, 7 audit,
--   8 audit_actor, 9 audit_actors, 10 archive (archive state)
-- ARGV: 1 label (the period's), 2 actor, 3 reason, 4 audit_keep (entries
--   kept per stream), 5 now (µs: a freeze whose time has come is taken
--   first)
-- Returns {'nf'}, {'archived'} (the period's keys expired to the archive:
-- it no longer changes) or {'ok', members removed}.
-- uses: base, audit, freeze
local k_def = KEYS[1]
local k_periods = KEYS[2]
local k_zset = KEYS[3]
local k_entries = KEYS[4]
local k_distinct = KEYS[5]
local k_counts = KEYS[6]
local k_audit = KEYS[7]
local k_audit_actor = KEYS[8]
local k_audit_actors = KEYS[9]
local k_archive = KEYS[10]
local a_label = ARGV[1]
local a_actor = ARGV[2]
local a_reason = ARGV[3]
local a_audit_keep = ARGV[4]
local a_now = ARGV[5]
local freeze_at = redis.call('HGET', k_def, 'freeze_at')
if not freeze_at and redis.call('EXISTS', k_def) == 0 then return {'nf'} end
freeze_due(freeze_at, tag_of(k_def) .. ':freeze', a_now)
local state = redis.call('HGET', k_archive, a_label)
if state and string.find(state, ' x', 1, true) then return {'archived'} end
if state then redis.call('HSET', k_archive, a_label, '0 ' .. now_ms() .. '000 changed') end
local n = redis.call('ZCARD', k_zset)
for _, bk in ipairs(bucket_keys(k_zset)) do redis.call('DEL', bk) end -- a window's buckets
redis.call('DEL', k_zset, k_entries, k_distinct, k_counts, k_zset .. ':bs', k_zset .. ':race', unpack(team_keys(k_zset)))
redis.call('DEL', unpack(segment_keys(k_zset))) -- its segment standings (redisstore/segment.go)
redis.call('SREM', k_periods, k_zset)
local function members(k)
  if k == 1 then return '1 member' end
  return k .. ' members'
end
audit_add(k_audit, k_audit_actor, k_audit_actors, a_audit_keep, a_actor, {'t', now_ms(), 'actor', a_actor, 'action', 'period.reset',
  'board', string.match(k_def, '^lb:{(.*)}:def$'), 'period', a_label, 'before', members(n), 'after', '0 members', 'reason', a_reason})
return {'ok', n}
