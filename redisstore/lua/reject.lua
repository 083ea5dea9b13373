-- Reject a write held for review (lib/rules.lua): drop it from the board's
-- review queue and record the rejection in the board's audit log, in one
-- step, as every change is.
-- KEYS: 1 def, 2 held (the review queue), 3 audit, 4 audit_actor,
--   5 audit_actors
-- ARGV: 1 id (the held write's), 2 actor, 3 reason (what was rejected and
--   why, as the caller words it), 4 audit_keep (entries kept per stream)
-- Returns {'nf'} for an unknown board, {'gone'} for a write no longer held
-- (approved or rejected already), else {'ok', the held write's JSON}.
-- uses: base, audit
local k_def = KEYS[1]
local k_held = KEYS[2]
local k_audit = KEYS[3]
local k_audit_actor = KEYS[4]
local k_audit_actors = KEYS[5]
local a_id = ARGV[1]
local a_actor = ARGV[2]
local a_reason = ARGV[3]
local a_audit_keep = ARGV[4]
if redis.call('EXISTS', k_def) == 0 then return {'nf'} end
local raw = redis.call('HGET', k_held, a_id)
if not raw then return {'gone'} end
redis.call('HDEL', k_held, a_id)
local h = cjson.decode(raw)
audit_add(k_audit, k_audit_actor, k_audit_actors, a_audit_keep, a_actor, {'t', now_ms(), 'actor', a_actor, 'action', 'score.reject',
  'board', string.match(k_def, '^lb:{(.*)}:def$'), 'member', h.m, 'after', '(rejected)', 'reason', a_reason})
return {'ok', raw}
