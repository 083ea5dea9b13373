-- Put a member in a team (or take it out of its team), moving its scores in
-- every period the board holds from one team's standing to the other's, and
-- record it in the board's audit log, in one step (redisstore/team.go).
-- KEYS: 1 def, 2 periods, 3 audit, 4 audit_actor, 5 audit_actors
-- ARGV: 1 desc, 2 prefix_width, 3 fields_width, 4 rank_style, 5 member,
--   6 team ('' none), 7 actor, 8 reason, 9 audit_keep (entries kept per
--   stream), 10 version (the definition version the caller read)
-- Returns {'nf'}, {'stale'} (the definition changed), {'off'} (the board
-- keeps no teams), or {'ok', the team left ('' none), '1' when it moved}.
-- uses: teams, audit, freeze
local k_def = KEYS[1]
local k_periods = KEYS[2]
local k_audit = KEYS[3]
local k_audit_actor = KEYS[4]
local k_audit_actors = KEYS[5]
local a_member = ARGV[5]
local a_team = ARGV[6]
local a_actor = ARGV[7]
local a_reason = ARGV[8]
local a_audit_keep = ARGV[9]
local a_version = ARGV[10]
local def = redis.call('HMGET', k_def, 'version', 'teams', 'freeze_at')
if not def[1] and redis.call('EXISTS', k_def) == 0 then return {'nf'} end
if (def[1] or '0') ~= a_version then return {'stale'} end
freeze_due(def[3], tag_of(k_def) .. ':freeze') -- a scheduled freeze is taken first
local TEAMS = def[2] or ''
if TEAMS == '' then return {'off'} end
local id, team = a_member, a_team
local was = teamlib.join(TEAMS, tag_of(k_def), id, team, redis.call('SMEMBERS', k_periods))
if not was then return {'ok', team, '0'} end
audit_add(k_audit, k_audit_actor, k_audit_actors, a_audit_keep, a_actor, {'t', now_ms(), 'actor', a_actor, 'action', 'member.team',
  'board', string.match(k_def, '^lb:{(.*)}:def$'), 'member', id, 'before', was, 'after', team, 'reason', a_reason})
return {'ok', was, '1'}
