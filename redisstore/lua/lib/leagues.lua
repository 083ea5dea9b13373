-- leagues: cohorts of leagues (board/league.go, redisstore/league.go), kept
-- by the scripts that change scores, in the same step. A board's league is
-- its definition's 'league' field (the JSON of board.League). A member's
-- tier is in <tag>:league:tier (member -> tier index, 0 the lowest: absent
-- is 0). In every period of the league's kind, a member's first score
-- places it in a cohort of its tier, filling them in order: z..':L' holds
-- member -> "<tier>/<cohort>" (cohorts from 1), z..':Ln' holds per tier
-- "<tier>" -> its open (last) cohort, and per cohort "<tier>/<cohort>" ->
-- the members placed there. A new member joins the open cohort while it
-- holds fewer than the cohort size, else opens the next. A placement is
-- for the period: removals and the size cap take scores away, not places.
-- A cohort's standing is a group standing (lib/segments.lua) listed in
-- z..':gs' as "L:<tier>/<cohort>" (no attribute is upper-case), so its
-- keys (z..':g:L:<tier>/<cohort>'), like z..':L' and z..':Ln'
-- (segment_keys), expire, reset, freeze, erase and go with z.
-- The functions live in the segments library's table: a script may have
-- 200 locals, and submit.lua has none to spare.
-- uses: segments

-- seg.league reads the definition's 'league' field: the kind, the cohort
-- size and the number of tiers, or false for a board without a league.
function seg.league(field)
  if not field or field == '' then return false end
  local l = cjson.decode(field)
  local size = tonumber(l.cohort_size) or 0
  if size <= 0 then size = 30 end -- board.DefaultCohortSize
  return {kind = l.kind, size = size, tiers = #l.tiers}
end

-- seg.league_in: does period zset z (its label) belong to league lg?
function seg.league_in(lg, label)
  return lg and string.match(label, '^[^:]+') == lg.kind
end

-- seg.cohort is member id's cohort ("<tier>/<cohort>") in period zset z,
-- placing it first when place is true; false when it has none.
function seg.cohort(tag, lg, z, id, place)
  local c = redis.call('HGET', z .. ':L', id)
  if c or not place then return c end
  local tier = tonumber(redis.call('HGET', tag .. ':league:tier', id) or '0') or 0
  if tier >= lg.tiers then tier = lg.tiers - 1 end -- tiers taken off the definition
  if tier < 0 then tier = 0 end
  local n = z .. ':Ln'
  local open = tonumber(redis.call('HGET', n, tostring(tier)) or '0')
  if open == 0 or tonumber(redis.call('HGET', n, tier .. '/' .. open) or '0') >= lg.size then
    open = open + 1
    redis.call('HSET', n, tostring(tier), open)
  end
  c = tier .. '/' .. open
  redis.call('HINCRBY', n, c, 1)
  redis.call('HSET', z .. ':L', id, c)
  return c
end

-- seg.league_follow moves the cohort standings along with a call's
-- changes, as seg.follow (same arguments, lg: seg.league's), placing a
-- member on its first score of a period of the league's kind.
function seg.league_follow(tag, lg, periods, ids, orig, final)
  if not lg then return end
  for i, per in ipairs(periods) do
    if seg.league_in(lg, per.label) then
      for _, id in ipairs(ids) do
        local o, ne, ns = orig[i][id], seg.after(per, final and final[i], id)
        if o[1] ~= ne or (ne and tonumber(o[2]) ~= tonumber(ns)) then
          local c = seg.cohort(tag, lg, per.z, id, ne and true)
          if c then seg.place(per.z, 'L:' .. c, o[1], o[2], ne, ns) end
        end
      end
    end
  end
end

-- seg.league_drop takes member id's entry e (score s) out of its cohort's
-- standing in z (removed, or trimmed by a size cap); it keeps its place.
function seg.league_drop(z, id, e, s)
  local c = redis.call('HGET', z .. ':L', id)
  if c then seg.place(z, 'L:' .. c, e, s, false) end
end

-- seg.league_erase moves member old's place in period z (or a freeze's
-- copy), and its result of the period's close, to new (false: drops
-- them; the cohort's count keeps the place); the
-- standings follow through seg.rename. Returns 1 when it had one.
function seg.league_erase(z, old, new)
  -- Its result of the period's close, saved or staged by a pass under way
  -- (redisstore/league_close.go).
  local results = redis.call('SMEMBERS', z .. ':Lr:staging')
  results[#results + 1] = z .. ':Lr'
  for _, k in ipairs(results) do
    local r = redis.call('HGET', k, old)
    if r then
      redis.call('HDEL', k, old)
      if new then redis.call('HSET', k, new, r) end
    end
  end
  local c = redis.call('HGET', z .. ':L', old)
  if not c then return 0 end
  redis.call('HDEL', z .. ':L', old)
  if new then redis.call('HSET', z .. ':L', new, c) end
  return 1
end

-- seg.tier_erase moves member old's tier to new (false: drops it).
-- Returns 1 when it had one.
function seg.tier_erase(tag, old, new)
  local t = redis.call('HGET', tag .. ':league:tier', old)
  if not t then return 0 end
  redis.call('HDEL', tag .. ':league:tier', old)
  if new then redis.call('HSET', tag .. ':league:tier', new, t) end
  return 1
end
