-- Copy a period's scores to a key of its own, atomically, for a reader that
-- pages through all of it (the archiver) while writes go on; for a dense
-- board, its tie-group index is built for the copy. With ARGV[7] '1' the
-- period's team standing (redisstore/team.go) is copied in the same step, to the
-- copy's own team keys, so the two agree. All expire by themselves.
-- With an owner (ARGV[8], the token of an archive pass's lock on the
-- period), the copy is taken only while that lock is the owner's, and is
-- recorded with it, so that a later pass drops it should this one die
-- (dropsnap.lua); the record lives as long as the copies it lists.
-- KEYS: 1 def, 2 zset, 3 copy, 4 copy's distinct groups, 5 copy's group
-- counts, 6 archive state, 7 archive snapshots record, 8 the period's
-- archive lock. ARGV (after the prelude's 4): 5 seconds to live, 6 period
-- label, 7 '1' to copy the team standing, 8 owner ('' none). Returns
-- {'nf'} (no board), {'lost'} (the owner's lock is gone) or {'ok', members,
-- the period's archive state ('' none), teams}: the archiver records its
-- copy only if that state has not changed since (a write to the closed
-- period changes it).
-- uses: encoding
if redis.call('EXISTS', KEYS[1]) == 0 then return {'nf'} end
if ARGV[8] ~= '' then
  if redis.call('GET', KEYS[8]) ~= ARGV[8] then return {'lost'} end
  redis.call('HSET', KEYS[7], KEYS[3], ARGV[6] .. ' ' .. ARGV[8])
  if redis.call('TTL', KEYS[7]) < tonumber(ARGV[5]) then redis.call('EXPIRE', KEYS[7], ARGV[5]) end
end
-- The copy's team keys: its standing, members counted per team, and (dense
-- boards) the teams' tie groups; team_keys' but for the sums of averages.
local tsrc, tdst = {}, {}
for _, sfx in ipairs({':t', ':tn', ':t:d', ':t:c'}) do
  tsrc[#tsrc + 1], tdst[#tdst + 1] = KEYS[2] .. sfx, KEYS[3] .. sfx
end
redis.call('DEL', KEYS[3], KEYS[4], KEYS[5], unpack(tdst))
local n = redis.call('ZCARD', KEYS[2])
local state = redis.call('HGET', KEYS[6], ARGV[6]) or ''
if n == 0 then return {'ok', 0, state, 0} end
redis.call('ZUNIONSTORE', KEYS[3], 1, KEYS[2])
if STYLE == 'dense' then
  for off = 0, n - 1, 1000 do
    local r = redis.call('ZRANGE', KEYS[3], off, off + 999, 'WITHSCORES')
    for i = 1, #r, 2 do
      local g = group_of(r[i], r[i + 1])
      if redis.call('HINCRBY', KEYS[5], g, 1) == 1 then redis.call('ZADD', KEYS[4], r[i + 1], g) end
    end
  end
end
for k = 3, 5 do redis.call('EXPIRE', KEYS[k], ARGV[5]) end
local teams = 0
if ARGV[7] == '1' then
  for i = 1, #tsrc do
    if redis.call('COPY', tsrc[i], tdst[i]) == 1 then redis.call('EXPIRE', tdst[i], ARGV[5]) end
  end
  teams = redis.call('ZCARD', tdst[1])
end
return {'ok', n, state, teams}
