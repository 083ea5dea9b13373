-- Remove a member from one period, or from every period that holds data,
-- and record it in the board's audit log in the same step. With no period
-- keys the script walks the periods set; those keys share the board's hash
-- tag (same slot). A closed period the archiver copied is marked changed
-- (so it is copied again); one whose keys expired to the archive no longer
-- changes: named, it is refused ({'archived'}); walking, it is passed over.
-- KEYS: 1 def, 2 names, 3 names_lc, 4 names_idx, 5 periods, 6 audit,
--   7 audit_actor, 8 audit_actors, 9 archive (archive state)
-- KEYS per period: 1 zset, 2 entries, 3 distinct, 4 counts (one period, or
--   none: every period)
-- ARGV: 1 desc, 2 prefix_width, 3 fields_width, 4 rank_style, 5 member,
--   6 actor, 7 reason, 8 audit_keep (entries kept per stream), 9 now (µs: a
--   freeze whose time has come is taken first)
-- Returns {'nf'} for an unknown board, else {'ok', zset, score, zset, score...}
-- for every period the member was removed from.
-- uses: teams, segments, leagues, audit, freeze
local k_def = KEYS[1]
local k_names = KEYS[2]
local k_names_lc = KEYS[3]
local k_names_idx = KEYS[4]
local k_periods = KEYS[5]
local k_audit = KEYS[6]
local k_audit_actor = KEYS[7]
local k_audit_actors = KEYS[8]
local k_archive = KEYS[9]
local a_member = ARGV[5]
local a_actor = ARGV[6]
local a_reason = ARGV[7]
local a_audit_keep = ARGV[8]
local a_now = ARGV[9]
local KEYS_FIXED = 9
local KEYS_PER_PERIOD = {'zset', 'entries', 'distinct', 'counts'}
local def = redis.call('HMGET', k_def, 'format', 'decimals', 'prefix', 'suffix', 'teams', 'freeze_at', 'segments', 'league')
if not def[1] and redis.call('EXISTS', k_def) == 0 then return {'nf'} end
local id = a_member
local out, lines = {'ok'}, {}
local TEAMS, TAG, ATTRS = def[5] or '', tag_of(k_def), seg.attrs(def[7])
freeze_due(def[6], TAG .. ':freeze', a_now)
local team = TEAMS ~= '' and redis.call('HGET', TAG .. ':team', id)
local function remove(z, ek, d, c)
  local state = redis.call('HGET', k_archive, label_of(z))
  if state and string.find(state, ' x', 1, true) then return end
  local e = entry_of(z, ek, id)
  local s = e and redis.call('ZSCORE', z, e)
  if not s then return end
  if state then redis.call('HSET', k_archive, label_of(z), '0 ' .. now_ms() .. '000 changed') end
  redis.call('ZREM', z, e)
  if PW > 0 then redis.call('HDEL', ek, id) end
  group_del(d, c, e, s)
  -- A window's buckets forget the member too: a later expiry must not take
  -- their old changes from a score it starts again.
  for _, bk in ipairs(bucket_keys(z)) do redis.call('ZREM', bk, id) end
  teamlib.apply(TEAMS, z, TAG, team, tonumber(s), nil)
  seg.drop(TAG, ATTRS, z, id, e, s)
  if (def[8] or '') ~= '' then seg.league_drop(z, id, e, s) end -- its cohort's standing (it keeps its place)
  out[#out + 1] = z
  out[#out + 1] = s
  -- member, op, value, before, rank, after, rank, name, period (see submit.lua)
  lines[#lines + 1] = table.concat({id, 'remove', '', fmt(tonumber(s)), '', '', '', '', label_of(z)}, '\t')
end
if #KEYS > KEYS_FIXED then
  local pk = part_at(KEYS, KEYS_FIXED, KEYS_PER_PERIOD, 1)
  local state = redis.call('HGET', k_archive, label_of(pk.zset))
  if state and string.find(state, ' x', 1, true) then return {'archived'} end
  remove(pk.zset, pk.entries, pk.distinct, pk.counts)
else
  for _, z in ipairs(redis.call('SMEMBERS', k_periods)) do
    remove(z, z .. ':e', z .. ':d', z .. ':c')
  end
  frozen_name_keep(TAG, id) -- the public of a frozen board keeps it (the freeze was taken above)
  local lower = redis.call('HGET', k_names_lc, id)
  if lower then redis.call('ZREM', k_names_idx, lower .. '\0' .. id) end
  redis.call('HDEL', k_names, id)
  redis.call('HDEL', k_names_lc, id)
  seg.leave(TAG, ATTRS, id, {}) -- and out of its segments (redisstore/segment.go)
  if team then -- out of every period: out of its team too
    redis.call('HDEL', TAG .. ':team', id)
    redis.call('SREM', TAG .. ':team:m:' .. team, id)
    if redis.call('SCARD', TAG .. ':team:m:' .. team) == 0 then redis.call('SREM', TAG .. ':teams', team) end
  end
end
if #lines > 0 then
  audit_add(k_audit, k_audit_actor, k_audit_actors, a_audit_keep, a_actor, {'t', now_ms(), 'actor', a_actor, 'action', 'member.remove',
    'board', string.match(k_def, '^lb:{(.*)}:def$'), 'member', id, 'reason', a_reason,
    'fmt', def[1] or '', 'dec', def[2] or '', 'pre', def[3] or '', 'suf', def[4] or '', 'items', table.concat(lines, '\n')})
end
return out
