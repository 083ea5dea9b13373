-- Empty one period of a board, and record it in the board's audit log in
-- the same step. KEYS: 1 def, 2 periods set, 3 zset, 4 entries, 5 distinct,
-- 6 counts, 7 audit stream, 8 the actor's audit stream, 9 audit actors set,
-- 10 archive state. ARGV (after the prelude's 4): 5 period label, 6 actor,
-- 7 reason, 8 audit entries kept, 9 now (µs): a freeze whose time has come
-- is taken first. Returns {'nf'}, {'archived'} (the
-- period's keys expired to the archive: it no longer changes) or {'ok',
-- members removed}. An archived copy of the period is marked changed: the
-- archiver drops it.
-- uses: base, audit, freeze
local freeze_at = redis.call('HGET', KEYS[1], 'freeze_at')
if not freeze_at and redis.call('EXISTS', KEYS[1]) == 0 then return {'nf'} end
freeze_due(freeze_at, tag_of(KEYS[1]) .. ':freeze', ARGV[9])
local state = redis.call('HGET', KEYS[10], ARGV[5])
if state and string.find(state, ' x', 1, true) then return {'archived'} end
if state then redis.call('HSET', KEYS[10], ARGV[5], '0 ' .. now_ms() .. '000 changed') end
local n = redis.call('ZCARD', KEYS[3])
for _, bk in ipairs(bucket_keys(KEYS[3])) do redis.call('DEL', bk) end -- a window's buckets
redis.call('DEL', KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[3] .. ':bs', unpack(team_keys(KEYS[3])))
redis.call('SREM', KEYS[2], KEYS[3])
local function members(k)
  if k == 1 then return '1 member' end
  return k .. ' members'
end
audit_add(KEYS[7], KEYS[8], KEYS[9], ARGV[8], ARGV[6], {'t', now_ms(), 'actor', ARGV[6], 'action', 'period.reset',
  'board', string.match(KEYS[1], '^lb:{(.*)}:def$'), 'period', ARGV[5], 'before', members(n), 'after', '0 members', 'reason', ARGV[7]})
return {'ok', n}
