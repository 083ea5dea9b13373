-- Give a member a value of a segment attribute (or take it out of the
-- attribute), moving its scores in every period the board holds from the
-- old value's standings to the new one's, and record it in the board's
-- audit log, in one step (redisstore/segment.go).
-- KEYS: 1 def, 2 periods, 3 audit, 4 audit_actor, 5 audit_actors
-- ARGV: 1 desc, 2 prefix_width, 3 fields_width, 4 rank_style, 5 member,
--   6 attr, 7 value ('' none), 8 actor, 9 reason, 10 audit_keep (entries
--   kept per stream), 11 version (the definition version the caller read)
-- Returns {'nf'}, {'stale'} (the definition changed), {'off'} (the board
-- has no such attribute), {'full'} (the attribute has seg.MAX_VALUES
-- values already), or {'ok', the value left ('' none), '1' when it moved}.
-- uses: segments, audit, freeze
local k_def = KEYS[1]
local k_periods = KEYS[2]
local k_audit = KEYS[3]
local k_audit_actor = KEYS[4]
local k_audit_actors = KEYS[5]
local a_member = ARGV[5]
local a_attr = ARGV[6]
local a_value = ARGV[7]
local a_actor = ARGV[8]
local a_reason = ARGV[9]
local a_audit_keep = ARGV[10]
local a_version = ARGV[11]
local def = redis.call('HMGET', k_def, 'version', 'segments', 'freeze_at')
if not def[1] and redis.call('EXISTS', k_def) == 0 then return {'nf'} end
if (def[1] or '0') ~= a_version then return {'stale'} end
local known = false
for _, a in ipairs(seg.attrs(def[2])) do known = known or a == a_attr end
if not known then return {'off'} end
local TAG = tag_of(k_def)
if seg.full(TAG, a_attr, a_value, seg.MAX_VALUES, {}) then return {'full'} end
freeze_due(def[3], TAG .. ':freeze') -- a scheduled freeze is taken first
local was = seg.join(TAG, a_attr, a_member, a_value, redis.call('SMEMBERS', k_periods))
if not was then return {'ok', a_value, '0'} end
audit_add(k_audit, k_audit_actor, k_audit_actors, a_audit_keep, a_actor, {'t', now_ms(), 'actor', a_actor, 'action', 'member.segment',
  'board', string.match(k_def, '^lb:{(.*)}:def$'), 'member', a_member, 'before', a_attr .. ': ' .. was, 'after', a_attr .. ': ' .. a_value,
  'reason', a_reason})
return {'ok', was, '1'}
