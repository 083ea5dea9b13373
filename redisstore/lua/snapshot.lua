-- Copy a period's scores to a key of its own, atomically, for a reader that
-- pages through all of it (the archiver) while writes go on; for a dense
-- board, its tie-group index is built for the copy. With teams '1' the
-- period's team standing (redisstore/team.go) is copied in the same step, to the
-- copy's own team keys, so the two agree. All expire by themselves.
-- With an owner (the token of an archive pass's lock on the period), the
-- copy is taken only while that lock is the owner's, and is recorded with
-- it, so that a later pass drops it should this one die (dropsnap.lua); the
-- record lives as long as the copies it lists.
-- The members' values of the board's attributes (redisstore/segment.go) are
-- copied too, one hash per attribute, so that the copy's rows carry the
-- values they had at this instant, as its segment standings placed them.
-- In a period of a league's kind, the members' cohorts (z..':L') come as
-- one more such pair (redisstore.LeagueAttr).
-- KEYS: 1 def, 2 zset, 3 copy, 4 copy_distinct (its tie groups),
--   5 copy_counts (its group counts), 6 archive (archive state), 7 snaps
--   (the archive snapshots record), 8 lock (the period's archive lock)
-- KEYS per segment: 1 values (an attribute's member -> value hash),
--   2 copy_values (its copy)
-- ARGV: 1 desc, 2 prefix_width, 3 fields_width, 4 rank_style, 5 ttl
--   (seconds to live), 6 label (the period's), 7 teams ('1' to copy the
--   team standing), 8 owner ('' none)
-- Returns {'nf'} (no board), {'lost'} (the owner's lock is gone) or {'ok',
-- members, the period's archive state ('' none), teams}: the archiver
-- records its copy only if that state has not changed since (a write to the
-- closed period changes it).
-- uses: encoding
local k_def = KEYS[1]
local k_zset = KEYS[2]
local k_copy = KEYS[3]
local k_copy_distinct = KEYS[4]
local k_copy_counts = KEYS[5]
local k_archive = KEYS[6]
local k_snaps = KEYS[7]
local k_lock = KEYS[8]
local KEYS_FIXED = 8
local KEYS_PER_SEGMENT = {'values', 'copy_values'}
local a_ttl = ARGV[5]
local a_label = ARGV[6]
local a_teams = ARGV[7]
local a_owner = ARGV[8]
if redis.call('EXISTS', k_def) == 0 then return {'nf'} end
if a_owner ~= '' then
  if redis.call('GET', k_lock) ~= a_owner then return {'lost'} end
  redis.call('HSET', k_snaps, k_copy, a_label .. ' ' .. a_owner)
  if redis.call('TTL', k_snaps) < tonumber(a_ttl) then redis.call('EXPIRE', k_snaps, a_ttl) end
end
-- The copy's team keys: its standing, members counted per team, and (dense
-- boards) the teams' tie groups; team_keys' but for the sums of averages.
local tsrc, tdst = {}, {}
for _, sfx in ipairs({':t', ':tn', ':t:d', ':t:c'}) do
  tsrc[#tsrc + 1], tdst[#tdst + 1] = k_zset .. sfx, k_copy .. sfx
end
local segs = {}
for i = 1, (#KEYS - KEYS_FIXED) / #KEYS_PER_SEGMENT do
  segs[i] = part_at(KEYS, KEYS_FIXED, KEYS_PER_SEGMENT, i)
  redis.call('DEL', segs[i].copy_values)
end
redis.call('DEL', k_copy, k_copy_distinct, k_copy_counts, unpack(tdst))
local n = redis.call('ZCARD', k_zset)
local state = redis.call('HGET', k_archive, a_label) or ''
if n == 0 then return {'ok', 0, state, 0} end
redis.call('ZUNIONSTORE', k_copy, 1, k_zset)
if STYLE == 'dense' then
  for off = 0, n - 1, 1000 do
    local r = redis.call('ZRANGE', k_copy, off, off + 999, 'WITHSCORES')
    for i = 1, #r, 2 do
      local g = group_of(r[i], r[i + 1])
      if redis.call('HINCRBY', k_copy_counts, g, 1) == 1 then redis.call('ZADD', k_copy_distinct, r[i + 1], g) end
    end
  end
end
for _, k in ipairs({k_copy, k_copy_distinct, k_copy_counts}) do redis.call('EXPIRE', k, a_ttl) end
for _, sk in ipairs(segs) do
  if redis.call('COPY', sk.values, sk.copy_values) == 1 then redis.call('EXPIRE', sk.copy_values, a_ttl) end
end
local teams = 0
if a_teams == '1' then
  for i = 1, #tsrc do
    if redis.call('COPY', tsrc[i], tdst[i]) == 1 then redis.call('EXPIRE', tdst[i], a_ttl) end
  end
  teams = redis.call('ZCARD', tdst[1])
end
return {'ok', n, state, teams}
