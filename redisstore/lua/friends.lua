-- Set a member's friends on a board: the member's set of friends becomes
-- the list given, the reverse index of each friend added or dropped follows
-- (lb:{b}:friendof:<friend>, the members who name that friend: an erasure
-- finds every list that names a member there), and the change goes to the
-- board's audit log, in one step (redisstore/friends.go). The board's index
-- of lists (lb:{b}:friends) names the members that have one, for the
-- board's deletion.
-- KEYS: 1 def, 2 friends (the member's set), 3 index (the members with a
--   list), 4 audit, 5 audit_actor, 6 audit_actors
-- ARGV: 1 member, 2 actor, 3 reason, 4 audit_keep, 5.. friend
-- Returns {'nf'} (no such board) or {'ok', added, dropped}.
-- uses: base, audit
local k_def = KEYS[1]
local k_friends = KEYS[2]
local k_index = KEYS[3]
local k_audit = KEYS[4]
local k_audit_actor = KEYS[5]
local k_audit_actors = KEYS[6]
local a_member = ARGV[1]
local a_actor = ARGV[2]
local a_reason = ARGV[3]
local a_audit_keep = ARGV[4]
local ARGV_FIXED = 4
if redis.call('EXISTS', k_def) == 0 then return {'nf'} end
local tag = tag_of(k_def)
local want = {}
for i = ARGV_FIXED + 1, #ARGV do want[ARGV[i]] = true end
local before = redis.call('SMEMBERS', k_friends)
local added, dropped = 0, 0
for _, f in ipairs(before) do
  if not want[f] then
    redis.call('SREM', k_friends, f)
    redis.call('SREM', tag .. ':friendof:' .. f, a_member)
    dropped = dropped + 1
  end
end
for i = ARGV_FIXED + 1, #ARGV do
  local f = ARGV[i]
  if redis.call('SADD', k_friends, f) == 1 then
    redis.call('SADD', tag .. ':friendof:' .. f, a_member)
    added = added + 1
  end
end
if #before + added - dropped > 0 then
  redis.call('SADD', k_index, a_member)
else
  redis.call('SREM', k_index, a_member)
end
if added + dropped > 0 then
  audit_add(k_audit, k_audit_actor, k_audit_actors, a_audit_keep, a_actor, {'t', now_ms(), 'actor', a_actor,
    'action', 'member.friends', 'board', string.match(k_def, '^lb:{(.*)}:def$'), 'member', a_member,
    'before', #before .. ' friends', 'after', (#before + added - dropped) .. ' friends (' .. added .. ' added, ' .. dropped .. ' dropped)',
    'reason', a_reason})
end
return {'ok', added, dropped}
