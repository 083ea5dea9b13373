-- Build the team standing of one period from its members' scores and their
-- teams, as teamlib.apply would have kept it (redisstore/team.go): when a board's
-- team mode changes. O(members of the period). A closed period the
-- archiver has copied is marked changed, so it is copied again.
-- KEYS: 1 def, 2 zset (the period's)
-- ARGV: 1 desc, 2 prefix_width, 3 fields_width, 4 rank_style (its rank
--   style decides the team tie groups), 5 teams (the team mode the caller
--   read)
-- Returns {'ok', teams}, or {'stale'} when the definition's team mode or
-- rank style is no longer the one the caller read (the definition that
-- changed them rebuilds the standings itself; other edits, a freeze, a
-- title, leave this rebuild going).
-- uses: teams
local k_def = KEYS[1]
local k_zset = KEYS[2]
local a_teams = ARGV[5]
local def = redis.call('HMGET', k_def, 'teams', 'rank_style')
if (def[1] or '') ~= a_teams or (def[2] or 'competition') ~= STYLE then return {'stale'} end
local z, MODE = k_zset, a_teams
local TAG = tag_of(k_def)
-- An archived closed period is copied again: its team standing changes
-- (or goes, with teams turned off).
if redis.call('EXISTS', z .. ':t') == 1 or MODE ~= '' then teamlib.changed(TAG, z) end
redis.call('DEL', unpack(team_keys(z)))
if MODE == '' then return {'ok', 0} end
local sum, count, best, order = {}, {}, {}, {}
local n = redis.call('ZCARD', z)
for off = 0, n - 1, 1000 do
  local r = redis.call('ZRANGE', z, off, off + 999, 'WITHSCORES')
  local ids = {}
  for i = 1, #r, 2 do ids[#ids + 1] = entry_id(r[i]) end
  if #ids > 0 then
    local teams = redis.call('HMGET', TAG .. ':team', unpack(ids))
    for j, t in ipairs(teams) do
      if t then
        local s = tonumber(r[2 * j])
        if not count[t] then
          order[#order + 1] = t
          count[t], sum[t], best[t] = 0, 0, s
        end
        count[t], sum[t] = count[t] + 1, sum[t] + s
        if score_better(s, best[t]) then best[t] = s end
      end
    end
  end
end
for _, t in ipairs(order) do
  redis.call('HSET', z .. ':tn', t, count[t])
  local score = sum[t]
  if MODE == 'average' then
    redis.call('HSET', z .. ':ts', t, fmt(sum[t]))
    score = sum[t] / count[t]
  elseif MODE == 'best' then
    score = best[t]
  end
  teamlib.set(z, t, nil, score)
end
return {'ok', #order}
