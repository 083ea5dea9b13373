-- teams: team standings (redisstore/team.go), kept by the scripts that
-- change scores. A member's team is in <tag>:team (member -> team) and
-- <tag>:team:m:<team> is the set of a team's members; <tag>:teams is the
-- set of teams. Per period zset z, z..':t' is the team standing (team ->
-- the sum, average or best of its members' scores in z), z..':tn' counts
-- the members each team has in z, z..':ts' keeps each team's sum (for
-- averages), and a dense board keeps its team tie groups ('@<score>') in
-- z..':t:d' and z..':t:c': the standing reads like a period's (view.lua on
-- z..':t' with no entry prefix).
-- uses: encoding

-- teamlib holds the library's functions: one local (a script may have 200,
-- and submit.lua needs its own).
local teamlib = {}

-- teamlib.set moves a team's score in z from old to new (nil: none).
function teamlib.set(z, team, old, new)
  if STYLE == 'dense' and old ~= nil then
    local g = '@' .. fmt(old)
    if redis.call('HINCRBY', z .. ':t:c', g, -1) <= 0 then
      redis.call('HDEL', z .. ':t:c', g)
      redis.call('ZREM', z .. ':t:d', g)
    end
  end
  if new == nil then
    redis.call('ZREM', z .. ':t', team)
    return
  end
  redis.call('ZADD', z .. ':t', fmt(new), team)
  if STYLE == 'dense' then
    local g = '@' .. fmt(new)
    if redis.call('HINCRBY', z .. ':t:c', g, 1) == 1 then redis.call('ZADD', z .. ':t:d', fmt(new), g) end
  end
end

-- teamlib.best is the best score the members of team hold in z (nil: none).
function teamlib.best(z, tag, team)
  local ms = redis.call('SMEMBERS', tag .. ':team:m:' .. team)
  local best
  for off = 1, #ms, 1000 do
    local part = {}
    for j = off, math.min(#ms, off + 999) do part[#part + 1] = ms[j] end
    local es = part
    if PW > 0 then es = redis.call('HMGET', z .. ':e', unpack(part)) end
    local q = {}
    for j = 1, #part do
      if es[j] then q[#q + 1] = es[j] end
    end
    if #q > 0 then
      for _, v in ipairs(redis.call('ZMSCORE', z, unpack(q))) do
        v = v and tonumber(v)
        if v and (best == nil or score_better(v, best)) then best = v end
      end
    end
  end
  return best
end

-- teamlib.apply follows one member's change in period z in its team's
-- standing: old and new are its scores there before and after (nil: not in
-- the period). z must already hold the new score, and the team's member set
-- the member or not, as it is after the change.
function teamlib.apply(mode, z, tag, team, old, new)
  if mode == '' or not team or (old == nil and new == nil) then return end
  local dn = 0
  if old == nil then dn = 1 elseif new == nil then dn = -1 end
  local n = redis.call('HINCRBY', z .. ':tn', team, dn)
  local cur = tonumber(redis.call('ZSCORE', z .. ':t', team))
  if n <= 0 then
    redis.call('HDEL', z .. ':tn', team)
    redis.call('HDEL', z .. ':ts', team)
    if cur then teamlib.set(z, team, cur, nil) end
    return
  end
  local v = cur
  if mode == 'sum' then
    v = (cur or 0) + (new or 0) - (old or 0)
  elseif mode == 'average' then
    local sum = (tonumber(redis.call('HGET', z .. ':ts', team)) or 0) + (new or 0) - (old or 0)
    redis.call('HSET', z .. ':ts', team, fmt(sum))
    v = sum / n
  elseif new ~= nil and (cur == nil or score_better(new, cur)) then
    v = new
  elseif cur ~= nil and old ~= nil and old == cur then
    v = teamlib.best(z, tag, team) -- the best may have been this member's
  end
  if v ~= cur then teamlib.set(z, team, cur, v) end
end

-- teamlib.changed marks closed period z changed for the archiver (package
-- archive) once it has copied it: its team standing changed, so the copy
-- is made again, and its keys do not expire before. A period whose keys
-- expired to the archive is no longer among a board's periods; it keeps
-- the team standing it was archived with.
function teamlib.changed(tag, z)
  local label = label_of(z)
  local v = redis.call('HGET', tag .. ':archive', label)
  if v and not string.find(v, ' x', 1, true) then
    redis.call('HSET', tag .. ':archive', label, '0 ' .. now_ms() .. '000 changed')
  end
end

-- teamlib.join puts member id in team ('' none), moving its scores in every
-- period the board holds (zs) from its old team's standing to the new one's.
-- Returns the team it left ('' none), or false when nothing changed.
function teamlib.join(mode, tag, id, team, zs)
  local was = redis.call('HGET', tag .. ':team', id) or ''
  if was == team then return false end
  local scores = {}
  for i, z in ipairs(zs) do
    local e = entry_of(z, z .. ':e', id)
    scores[i] = e and tonumber(redis.call('ZSCORE', z, e))
    if scores[i] and mode ~= '' then teamlib.changed(tag, z) end
  end
  if was ~= '' then
    local set = tag .. ':team:m:' .. was
    redis.call('SREM', set, id)
    if redis.call('SCARD', set) == 0 then redis.call('SREM', tag .. ':teams', was) end
    for i, z in ipairs(zs) do
      if scores[i] then teamlib.apply(mode, z, tag, was, scores[i], nil) end
    end
  end
  if team == '' then
    redis.call('HDEL', tag .. ':team', id)
    return was
  end
  redis.call('HSET', tag .. ':team', id, team)
  redis.call('SADD', tag .. ':team:m:' .. team, id)
  redis.call('SADD', tag .. ':teams', team)
  for i, z in ipairs(zs) do
    if scores[i] then teamlib.apply(mode, z, tag, team, nil, scores[i]) end
  end
  return was
end

-- teamlib.follow moves each team's standing along with its members' changes
-- in a call: from each member's score before the call (orig) to its score
-- after it, period by period: final's when given (the plans' end state,
-- exact without a size cap), else read back.
function teamlib.follow(mode, tag, periods, ids, orig, final)
  if mode == '' or #ids == 0 then return end
  local teams = redis.call('HMGET', tag .. ':team', unpack(ids))
  for i, per in ipairs(periods) do
    for j, id in ipairs(ids) do
      if teams[j] then
        local o = orig[i][id]
        local old = o[2] and tonumber(o[2]) or nil
        local new
        if final then
          new = final[i][id][2] and tonumber(final[i][id][2]) or nil
        else
          local e = entry_of(per.z, per.e, id)
          new = e and tonumber(redis.call('ZSCORE', per.z, e)) or nil
        end
        if old ~= new then teamlib.apply(mode, per.z, tag, teams[j], old, new) end
      end
    end
  end
end
