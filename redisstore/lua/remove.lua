-- Remove a member from one period, or from every period that holds data,
-- and record it in the board's audit log in the same step.
-- KEYS: 1 def, 2 names, 3 names:lc, 4 names:idx, 5 periods set, 6 audit
-- stream, 7 the actor's audit stream, 8 audit actors set, 9 archive state,
-- then for one period: zset, entries, distinct, counts. With no period keys
-- the script walks the periods set; those keys share the board's hash tag
-- (same slot). A closed period the archiver copied is marked changed (so it
-- is copied again); one whose keys expired to the archive no longer changes:
-- named, it is refused ({'archived'}); walking, it is passed over.
-- ARGV (after the prelude's 4): 5 member id, 6 actor, 7 reason, 8 audit
-- entries kept, 9 now (µs): a freeze whose time has come is taken first.
-- Returns {'nf'} for an unknown board, else {'ok', zset, score, zset, score...}
-- for every period the member was removed from.
-- uses: teams, audit, freeze
local def = redis.call('HMGET', KEYS[1], 'format', 'decimals', 'prefix', 'suffix', 'teams', 'freeze_at')
if not def[1] and redis.call('EXISTS', KEYS[1]) == 0 then return {'nf'} end
local id = ARGV[5]
local out, lines = {'ok'}, {}
local TEAMS, TAG = def[5] or '', tag_of(KEYS[1])
freeze_due(def[6], TAG .. ':freeze', ARGV[9])
local team = TEAMS ~= '' and redis.call('HGET', TAG .. ':team', id)
local function remove(z, ek, d, c)
  local state = redis.call('HGET', KEYS[9], label_of(z))
  if state and string.find(state, ' x', 1, true) then return end
  local e = entry_of(z, ek, id)
  local s = e and redis.call('ZSCORE', z, e)
  if not s then return end
  if state then redis.call('HSET', KEYS[9], label_of(z), '0 ' .. now_ms() .. '000 changed') end
  redis.call('ZREM', z, e)
  if PW > 0 then redis.call('HDEL', ek, id) end
  group_del(d, c, e, s)
  -- A window's buckets forget the member too: a later expiry must not take
  -- their old changes from a score it starts again.
  for _, bk in ipairs(bucket_keys(z)) do redis.call('ZREM', bk, id) end
  team_apply(TEAMS, z, TAG, team, tonumber(s), nil)
  out[#out + 1] = z
  out[#out + 1] = s
  -- member, op, value, before, rank, after, rank, name, period (see submit.lua)
  lines[#lines + 1] = table.concat({id, 'remove', '', fmt(tonumber(s)), '', '', '', '', label_of(z)}, '\t')
end
if #KEYS > 9 then
  local state = redis.call('HGET', KEYS[9], label_of(KEYS[10]))
  if state and string.find(state, ' x', 1, true) then return {'archived'} end
  remove(KEYS[10], KEYS[11], KEYS[12], KEYS[13])
else
  for _, z in ipairs(redis.call('SMEMBERS', KEYS[5])) do
    remove(z, z .. ':e', z .. ':d', z .. ':c')
  end
  frozen_name_keep(TAG, id) -- the public of a frozen board keeps it (the freeze was taken above)
  local lower = redis.call('HGET', KEYS[3], id)
  if lower then redis.call('ZREM', KEYS[4], lower .. '\0' .. id) end
  redis.call('HDEL', KEYS[2], id)
  redis.call('HDEL', KEYS[3], id)
  if team then -- out of every period: out of its team too
    redis.call('HDEL', TAG .. ':team', id)
    redis.call('SREM', TAG .. ':team:m:' .. team, id)
    if redis.call('SCARD', TAG .. ':team:m:' .. team) == 0 then redis.call('SREM', TAG .. ':teams', team) end
  end
end
if #lines > 0 then
  audit_add(KEYS[6], KEYS[7], KEYS[8], ARGV[8], ARGV[6], {'t', now_ms(), 'actor', ARGV[6], 'action', 'member.remove',
    'board', string.match(KEYS[1], '^lb:{(.*)}:def$'), 'member', id, 'reason', ARGV[7],
    'fmt', def[1] or '', 'dec', def[2] or '', 'pre', def[3] or '', 'suf', def[4] or '', 'items', table.concat(lines, '\n')})
end
return out
