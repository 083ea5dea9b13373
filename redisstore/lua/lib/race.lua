-- race: each period's score-over-time history of its top (redisstore/race.go),
-- kept by the script that changes scores. Per period zset z, z..':race' is
-- a list of points, oldest first, "<time µs>\t<score>\t<member>": one
-- whenever a member whose score changed in a call stands in the top
-- racelib.TOP after it (competition rank, so ties at the edge all count).
-- The list keeps the last racelib.CAP points; it expires, empties and goes
-- with its period (expire.lua, reset.lua, dropboard.lua), and an erasure
-- renames or takes out its member's points (racelib.erase, from erase.lua).
-- uses: ranks

-- racelib holds the library's functions: one local (a script may have 200,
-- and submit.lua needs its own).
local racelib = {TOP = 10, CAP = 2000}

-- racelib.follow records the call's changes to each calendar period and
-- all time (rolling windows keep no history): from each member's score
-- before the call (orig) to its score after it, final's when given (the
-- plans' end state, exact without a size cap), else read back. now is the
-- call's time in µs (the clock a freeze is taken by, so a frozen board's
-- public reads leave out what came after it).
function racelib.follow(periods, ids, orig, final, now)
  for i, per in ipairs(periods) do
    if not per.bk and per.touched then
      local pts = {}
      local edge = racelib.edge(per.z)
      for _, id in ipairs(ids) do
        local news
        if final then
          news = final[i][id][2]
        else
          local e = entry_of(per.z, per.e, id)
          news = e and redis.call('ZSCORE', per.z, e)
        end
        local olds = orig[i][id][2]
        if news and (not olds or tonumber(olds) ~= tonumber(news)) and racelib.inside(edge, tonumber(news)) then
          pts[#pts + 1] = now .. '\t' .. fmt(tonumber(news)) .. '\t' .. id
        end
      end
      if #pts > 0 then
        redis.call('RPUSH', per.z .. ':race', unpack(pts))
        redis.call('LTRIM', per.z .. ':race', -racelib.CAP, -1)
      end
    end
  end
end

-- racelib.edge is the score of the period's racelib.TOP-th best entry, nil
-- when it holds fewer: one read for the whole call, however many members
-- it changed, where counting the better scores of each (ZCOUNT) took one
-- per member (a batch of 1,000 scores, 2,000 reads on two periods).
function racelib.edge(z)
  local at
  if DESC then
    at = redis.call('ZREVRANGE', z, racelib.TOP - 1, racelib.TOP - 1, 'WITHSCORES')
  else
    at = redis.call('ZRANGE', z, racelib.TOP - 1, racelib.TOP - 1, 'WITHSCORES')
  end
  return at[2] and tonumber(at[2])
end

-- racelib.inside: a score stands in the top racelib.TOP (competition rank,
-- fewer than TOP scores strictly better) when the TOP-th best score is not
-- strictly better than it.
function racelib.inside(edge, score)
  if not edge then return true end
  if DESC then return edge <= score end
  return edge >= score
end

-- racelib.erase takes member old's points out of period z's history (new
-- nil: its erasure removes it from the period) or gives them its pseudonym
-- new. Returns how many points were its.
function racelib.erase(z, old, new)
  local key = z .. ':race'
  local out, n = {}, 0
  for _, pt in ipairs(redis.call('LRANGE', key, 0, -1)) do
    local head, id = string.match(pt, '^([^\t]*\t[^\t]*)\t(.*)$')
    if id == old then
      n = n + 1
      if new then out[#out + 1] = head .. '\t' .. new end
    else
      out[#out + 1] = pt
    end
  end
  if n > 0 then
    local ttl = redis.call('PTTL', key)
    redis.call('DEL', key)
    if #out > 0 then
      redis.call('RPUSH', key, unpack(out))
      if ttl > 0 then redis.call('PEXPIRE', key, ttl) end
    end
  end
  return n
end
