-- Set a member's display name and its entry in the name index, and record
-- it in the board's audit log in the same step.
-- KEYS: 1 def, 2 names, 3 names:lc, 4 names:idx, 5 audit stream, 6 the
-- actor's audit stream, 7 audit actors set. ARGV: 5 id, 6 name, 7 lower-cased
-- name, 8 actor, 9 reason, 10 audit entries kept, 11 now (µs).
-- A freeze whose time has come is taken first, and the name of its instant
-- kept for the public (frozen_name_keep).
-- Returns {'nf'} or {'ok', previous name or false}.
-- uses: base, audit, freeze
local freeze_at = redis.call('HGET', KEYS[1], 'freeze_at')
if not freeze_at and redis.call('EXISTS', KEYS[1]) == 0 then return {'nf'} end
local id, name, lower = ARGV[5], ARGV[6], ARGV[7]
local tag = string.match(KEYS[1], '^(lb:{[^}]*})')
freeze_due(freeze_at, tag .. ':freeze', ARGV[11])
frozen_name_keep(tag, id)
local prev = redis.call('HGET', KEYS[2], id)
local oldlower = redis.call('HGET', KEYS[3], id)
if oldlower then redis.call('ZREM', KEYS[4], oldlower .. '\0' .. id) end
redis.call('HSET', KEYS[2], id, name)
redis.call('HSET', KEYS[3], id, lower)
redis.call('ZADD', KEYS[4], 0, lower .. '\0' .. id)
audit_add(KEYS[5], KEYS[6], KEYS[7], ARGV[10], ARGV[8], {'t', now_ms(), 'actor', ARGV[8], 'action', 'member.rename',
  'board', string.match(KEYS[1], '^lb:{(.*)}:def$'), 'member', id, 'before', prev or id, 'after', name, 'reason', ARGV[9]})
return {'ok', prev}
