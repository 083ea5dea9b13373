-- Put a member in a team (or take it out of its team), moving its scores in
-- every period the board holds from one team's standing to the other's, and
-- record it in the board's audit log, in one step (redisstore/team.go).
-- KEYS: 1 def, 2 periods set, 3 audit stream, 4 the actor's audit stream,
-- 5 audit actors set. ARGV (after the prelude's 4): 5 member id, 6 team
-- ('' none), 7 actor, 8 reason, 9 audit entries kept, 10 the definition
-- version the caller read.
-- Returns {'nf'}, {'stale'} (the definition changed), {'off'} (the board
-- keeps no teams), or {'ok', the team left ('' none), '1' when it moved}.
-- uses: teams, audit, freeze
local def = redis.call('HMGET', KEYS[1], 'version', 'teams', 'freeze_at')
if not def[1] and redis.call('EXISTS', KEYS[1]) == 0 then return {'nf'} end
if (def[1] or '0') ~= ARGV[10] then return {'stale'} end
freeze_due(def[3], tag_of(KEYS[1]) .. ':freeze') -- a scheduled freeze is taken first
local TEAMS = def[2] or ''
if TEAMS == '' then return {'off'} end
local id, team = ARGV[5], ARGV[6]
local was = team_join(TEAMS, tag_of(KEYS[1]), id, team, redis.call('SMEMBERS', KEYS[2]))
if not was then return {'ok', team, '0'} end
audit_add(KEYS[3], KEYS[4], KEYS[5], ARGV[9], ARGV[7], {'t', now_ms(), 'actor', ARGV[7], 'action', 'member.team',
  'board', string.match(KEYS[1], '^lb:{(.*)}:def$'), 'member', id, 'before', was, 'after', team, 'reason', ARGV[8]})
return {'ok', was, '1'}
