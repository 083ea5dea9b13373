-- Rolling windows and teams: helpers shared by the scripts that change
-- scores (prepended after common.lua; see redisstore/window.go, redisstore/team.go).
-- The keys of a rolling window's buckets (redisstore/window.go); none for the
-- sorted set of a calendar period or all time.
local function bucket_keys(z)
  local out = {}
  if not string.match(z, '}:r:%w+$') then return out end
  for _, b in ipairs(redis.call('SMEMBERS', z .. ':bs')) do out[#out + 1] = z .. ':b:' .. b end
  return out
end

-- Teams (redisstore/team.go). A member's team is in <tag>:team (member -> team)
-- and <tag>:team:m:<team> is the set of a team's members; <tag>:teams is
-- the set of teams. Per period zset z, z..':t' is the team standing (team
-- -> the sum, average or best of its members' scores in z), z..':tn' counts
-- the members each team has in z, z..':ts' keeps each team's sum (for
-- averages), and a dense board keeps its team tie groups ('@<score>') in
-- z..':t:d' and z..':t:c': the standing reads like a period's (view.lua on
-- z..':t' with no entry prefix).
local function tag_of(key) return string.match(key, '^(lb:{[^}]*})') end

local function team_better(a, b)
  if DESC then return a > b end
  return a < b
end

-- team_set moves a team's score in z from old to new (nil: none).
local function team_set(z, team, old, new)
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

-- team_best is the best score the members of team hold in z (nil: none).
local function team_best(z, tag, team)
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
        if v and (best == nil or team_better(v, best)) then best = v end
      end
    end
  end
  return best
end

-- team_apply follows one member's change in period z in its team's
-- standing: old and new are its scores there before and after (nil: not in
-- the period). z must already hold the new score, and the team's member set
-- the member or not, as it is after the change.
local function team_apply(mode, z, tag, team, old, new)
  if mode == '' or not team or (old == nil and new == nil) then return end
  local dn = 0
  if old == nil then dn = 1 elseif new == nil then dn = -1 end
  local n = redis.call('HINCRBY', z .. ':tn', team, dn)
  local cur = tonumber(redis.call('ZSCORE', z .. ':t', team))
  if n <= 0 then
    redis.call('HDEL', z .. ':tn', team)
    redis.call('HDEL', z .. ':ts', team)
    if cur then team_set(z, team, cur, nil) end
    return
  end
  local v = cur
  if mode == 'sum' then
    v = (cur or 0) + (new or 0) - (old or 0)
  elseif mode == 'average' then
    local sum = (tonumber(redis.call('HGET', z .. ':ts', team)) or 0) + (new or 0) - (old or 0)
    redis.call('HSET', z .. ':ts', team, fmt(sum))
    v = sum / n
  elseif new ~= nil and (cur == nil or team_better(new, cur)) then
    v = new
  elseif cur ~= nil and old ~= nil and old == cur then
    v = team_best(z, tag, team) -- the best may have been this member's
  end
  if v ~= cur then team_set(z, team, cur, v) end
end

-- team_changed marks closed period z changed for the archiver (package
-- archive) once it has copied it: its team standing changed, so the copy
-- is made again, and its keys do not expire before. A period whose keys
-- expired to the archive is no longer among a board's periods; it keeps
-- the team standing it was archived with.
local function team_changed(tag, z)
  local label = label_of(z)
  local v = redis.call('HGET', tag .. ':archive', label)
  if v and not string.find(v, ' x', 1, true) then
    redis.call('HSET', tag .. ':archive', label, '0 ' .. now_ms() .. '000 changed')
  end
end

-- team_join puts member id in team ('' none), moving its scores in every
-- period the board holds (zs) from its old team's standing to the new one's.
-- Returns the team it left ('' none), or false when nothing changed.
local function team_join(mode, tag, id, team, zs)
  local was = redis.call('HGET', tag .. ':team', id) or ''
  if was == team then return false end
  local scores = {}
  for i, z in ipairs(zs) do
    local e = entry_of(z, z .. ':e', id)
    scores[i] = e and tonumber(redis.call('ZSCORE', z, e))
    if scores[i] and mode ~= '' then team_changed(tag, z) end
  end
  if was ~= '' then
    local set = tag .. ':team:m:' .. was
    redis.call('SREM', set, id)
    if redis.call('SCARD', set) == 0 then redis.call('SREM', tag .. ':teams', was) end
    for i, z in ipairs(zs) do
      if scores[i] then team_apply(mode, z, tag, was, scores[i], nil) end
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
    if scores[i] then team_apply(mode, z, tag, team, nil, scores[i]) end
  end
  return was
end

-- team_keys are the team standing keys of period zset z.
local function team_keys(z) return {z .. ':t', z .. ':tn', z .. ':ts', z .. ':t:d', z .. ':t:c'} end

-- window_setup reads submit.lua's rolling-window arguments, from ARGV[wa]:
-- W, then per window its index among the periods, the bucket of now, the
-- mode ('sum' or 'best') and the bucket's TTL in seconds. It returns the
-- periods without the windows whose floor (the oldest bucket they hold,
-- raised by roll.lua) is past the bucket of now: a writer whose clock is
-- far behind writes outside them.
local function window_setup(periods, tag, wa)
  local W = tonumber(ARGV[wa] or '0') or 0
  if W == 0 then return periods end
  local fields, wins = {}, {}
  for w = 1, W do
    local a = wa + (w - 1) * 4
    local per = periods[tonumber(ARGV[a + 1])]
    per.bucket, per.mode, per.ttl = ARGV[a + 2], ARGV[a + 3], ARGV[a + 4]
    per.bk, per.bs = per.z .. ':b:' .. per.bucket, per.z .. ':bs'
    fields[w], wins[w] = per.label, per
  end
  local floors = redis.call('HMGET', tag .. ':r:state', unpack(fields))
  for w = 1, W do
    if floors[w] and wins[w].bucket < floors[w] then wins[w].out = true end
  end
  local keep = {}
  for _, per in ipairs(periods) do
    if not per.out then keep[#keep + 1] = per end
  end
  return keep
end

-- window_ref is the item's plan in all time, or else in the board's longest
-- calendar period (ps: the item's plans of the periods before a window), or
-- nil on a board that keeps windows only.
local function window_ref(periods, ps)
  local ref
  for j = 1, #ps do
    if ps[j] and not periods[j].bk then
      ref = ps[j]
      if periods[j].label == 'all' then break end
    end
  end
  return ref
end

-- window_offer is what a write offers a best window: the value of a best
-- or set; for incr and decr, the score the write reaches in all time, or in
-- the board's longest calendar period, or else in the window itself.
local function window_offer(periods, ps, it, olds)
  if it.op ~= 'incr' and it.op ~= 'decr' then return it.val end
  local ref = window_ref(periods, ps)
  if ref then return tonumber(ref.news) end
  if it.op == 'incr' then return (tonumber(olds) or 0) + it.val end
  return (tonumber(olds) or 0) - it.val
end

-- window_change is the change a set or best made to the member's score in
-- all time, or in the board's longest calendar period: what a sum window
-- adds. Nil on a board that keeps windows only: the write then sets the
-- window itself.
local function window_change(periods, ps)
  local ref = window_ref(periods, ps)
  if not ref then return nil end
  return tonumber(ref.news) - (tonumber(ref.olds) or 0)
end

-- window_forget takes a member out of a window's buckets: it left the
-- window (a removal, the size cap), so their old changes must not be taken
-- from a score it starts again.
local function window_forget(z, id)
  for _, bk in ipairs(bucket_keys(z)) do redis.call('ZREM', bk, id) end
end

-- window_record writes what the applied items did into each window's
-- bucket of now: the change (sum) or the best offer (best), for members
-- still on the window after the call (capped: a later item may have
-- trimmed one; without a cap every member is).
local function window_record(periods, plans, items, applied, capped)
  if #applied == 0 then return end
  for i, per in ipairs(periods) do
    if per.bk then
      for _, n in ipairs(applied) do
        local p, id = plans[n][i], items[n].id
        local e = capped and entry_of(per.z, per.e, id)
        if p.new and (not capped or (e and redis.call('ZSCORE', per.z, e))) then
          if per.mode == 'best' then
            local had = tonumber(redis.call('ZSCORE', per.bk, id))
            if not had or team_better(p.offer, had) then redis.call('ZADD', per.bk, fmt(p.offer), id) end
          else
            redis.call('ZINCRBY', per.bk, fmt(tonumber(p.news) - (tonumber(p.olds) or 0)), id)
          end
        end
      end
      redis.call('EXPIRE', per.bk, per.ttl)
      redis.call('SADD', per.bs, per.bucket)
    end
  end
end

-- team_follow moves each team's standing along with its members' changes
-- in a call: from each member's score before the call (orig) to its score
-- after it, period by period: final's when given (the plans' end state,
-- exact without a size cap), else read back.
local function team_follow(mode, tag, periods, ids, orig, final)
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
        if old ~= new then team_apply(mode, per.z, tag, teams[j], old, new) end
      end
    end
  end
end
