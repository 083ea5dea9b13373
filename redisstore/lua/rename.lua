-- Set a member's display name and its entry in the name index, and record
-- it in the board's audit log in the same step. A freeze whose time has come
-- is taken first, and the name of its instant kept for the public
-- (frozen_name_keep).
-- KEYS: 1 def, 2 names, 3 names_lc, 4 names_idx, 5 audit, 6 audit_actor,
--   7 audit_actors
-- ARGV: 1 member, 2 name, 3 lower (the name lower-cased), 4 actor, 5 reason,
--   6 audit_keep (entries kept per stream), 7 now (µs)
-- Returns {'nf'} or {'ok', previous name or false}.
-- uses: base, audit, freeze
local k_def = KEYS[1]
local k_names = KEYS[2]
local k_names_lc = KEYS[3]
local k_names_idx = KEYS[4]
local k_audit = KEYS[5]
local k_audit_actor = KEYS[6]
local k_audit_actors = KEYS[7]
local a_member = ARGV[1]
local a_name = ARGV[2]
local a_lower = ARGV[3]
local a_actor = ARGV[4]
local a_reason = ARGV[5]
local a_audit_keep = ARGV[6]
local a_now = ARGV[7]
local freeze_at = redis.call('HGET', k_def, 'freeze_at')
if not freeze_at and redis.call('EXISTS', k_def) == 0 then return {'nf'} end
local id, name, lower = a_member, a_name, a_lower
local tag = string.match(k_def, '^(lb:{[^}]*})')
freeze_due(freeze_at, tag .. ':freeze', a_now)
frozen_name_keep(tag, id)
local prev = redis.call('HGET', k_names, id)
local oldlower = redis.call('HGET', k_names_lc, id)
if oldlower then redis.call('ZREM', k_names_idx, oldlower .. '\0' .. id) end
redis.call('HSET', k_names, id, name)
redis.call('HSET', k_names_lc, id, lower)
redis.call('ZADD', k_names_idx, 0, lower .. '\0' .. id)
audit_add(k_audit, k_audit_actor, k_audit_actors, a_audit_keep, a_actor, {'t', now_ms(), 'actor', a_actor, 'action', 'member.rename',
  'board', string.match(k_def, '^lb:{(.*)}:def$'), 'member', id, 'before', prev or id, 'after', name, 'reason', a_reason})
return {'ok', prev}
