-- freeze: a board's freeze (redisstore/freeze.go): its copies of the live
-- standings, taken when its time comes by the first write after it, and the
-- display names of its instant.
-- uses: base

-- The keys a frozen copy takes of a period: its sorted set, entries, dense
-- index, its team standing (redisstore/team.go) and its race (lib/race.lua:
-- the public's race stays the freeze's, though later points trim the live
-- one's oldest).
local FROZEN_SUFFIXES = {'', ':e', ':d', ':c', ':t', ':tn', ':ts', ':t:d', ':t:c', ':race'}

-- frozen_names_on caches, per board tag, whether its freeze is taken (so
-- name changes save the names of the freeze) for the rest of the script.
local frozen_names_on = {}

-- Take a board's freeze (redisstore/freeze.go) once its time has come: copy each
-- period that was current at the freeze, with its helper keys, to its frozen
-- keys, and the recent changes, in the caller's atomic step. Every write
-- through the app calls it first, so no write made after the freeze reaches
-- the copy. The marker names the keys (all in the board's slot). Display
-- names are not copied (a hash as big as the board): from now on each
-- change saves the name it replaces (frozen_name_keep). Returns 'none' (not
-- frozen), 'pending' (its time has not come), 'taken' (already) or 'took',
-- and the freeze's time.
local function freeze_take(marker, now)
  local m = redis.call('HMGET', marker, 'at', 'taken', 'keys')
  if not m[1] then return 'none', '' end
  if m[2] then return 'taken', m[1] end
  if tonumber(m[1]) > tonumber(now) then return 'pending', m[1] end
  for src, dst in string.gmatch(m[3] or '', '(%S+) (%S+)') do
    for _, sfx in ipairs(FROZEN_SUFFIXES) do
      redis.call('DEL', dst .. sfx)
      redis.call('COPY', src .. sfx, dst .. sfx)
    end
    -- Its segment standings (redisstore/segment.go), named after the copy.
    for _, k in ipairs(segment_keys(dst)) do redis.call('DEL', k) end
    local n = #src
    for _, k in ipairs(segment_keys(src)) do redis.call('COPY', k, dst .. string.sub(k, n + 1)) end
  end
  -- The teams' members as they were (redisstore/team.go): a team page of the
  -- freeze lists who was in the team then.
  local tag = string.match(marker, '^(lb:{[^}]*})')
  local teams = redis.call('SMEMBERS', tag .. ':teams')
  redis.call('DEL', tag .. ':frz:teams')
  if #teams > 0 then
    redis.call('COPY', tag .. ':teams', tag .. ':frz:teams')
    for _, t in ipairs(teams) do
      redis.call('DEL', tag .. ':frz:team:m:' .. t)
      redis.call('COPY', tag .. ':team:m:' .. t, tag .. ':frz:team:m:' .. t)
    end
  end
  -- The recent changes as they stood (a list of the board's recent-list
  -- length), and no names saved during an earlier freeze.
  redis.call('DEL', tag .. ':frz:recent', tag .. ':frz:names', tag .. ':frz:names:idx', tag .. ':frz:league:tier')
  redis.call('COPY', tag .. ':recent', tag .. ':frz:recent')
  -- The members' league tiers as they were (redisstore/league.go): a close
  -- during the freeze, which reads the live standings, moves the live
  -- tiers, and the public would read who went up or down from them.
  redis.call('COPY', tag .. ':league:tier', tag .. ':frz:league:tier')
  redis.call('HSET', marker, 'taken', now)
  frozen_names_on[tag] = true
  return 'took', m[1]
end

-- frozen_name_keep is called before a member's display name changes (set,
-- renamed, first given on first sight, or forgotten by a removal). While
-- the board's freeze is taken, the first change after it saves the name
-- the member had ('' none) in <tag>:frz:names, and its index entry in
-- <tag>:frz:names:idx: the public reads of a frozen board read names there
-- first (names_get, search.lua). It costs one HEXISTS a script when the
-- board is not frozen, and a few hash commands per member and freeze when
-- it is.
local function frozen_name_keep(tag, id)
  local on = frozen_names_on[tag]
  if on == nil then
    on = redis.call('HEXISTS', tag .. ':freeze', 'taken') == 1
    frozen_names_on[tag] = on
  end
  if not on then return end
  local saved = tag .. ':frz:names'
  local name = redis.call('HGET', tag .. ':names', id)
  if redis.call('HSETNX', saved, id, name or '') == 0 or not name then return end
  local lower = redis.call('HGET', tag .. ':names:lc', id)
  if lower then redis.call('ZADD', tag .. ':frz:names:idx', 0, lower .. '\0' .. id) end
end

-- freeze_due takes a board's freeze first when its time (freeze_at, the
-- definition's field, µs) has come by now (µs; nil: Redis' clock).
local function freeze_due(freeze_at, marker, now)
  if not freeze_at or freeze_at == '' then return end
  if not now then
    local t = redis.call('TIME')
    now = t[1] .. string.format('%06d', tonumber(t[2]))
  end
  if tonumber(freeze_at) <= tonumber(now) then freeze_take(marker, now) end
end

-- frozen_board_expire lets a freeze's copies of the board's recent changes,
-- names and league tiers expire after ms (0: at once).
local function frozen_board_expire(tag, ms)
  for _, k in ipairs({tag .. ':frz:recent', tag .. ':frz:names', tag .. ':frz:names:idx', tag .. ':frz:league:tier'}) do
    if ms == 0 then redis.call('DEL', k) else redis.call('PEXPIRE', k, ms) end
  end
end

-- frozen_teams_expire lets a freeze's copies of the teams' members expire
-- after ms (0: at once).
local function frozen_teams_expire(tag, ms)
  for _, t in ipairs(redis.call('SMEMBERS', tag .. ':frz:teams')) do
    if ms == 0 then redis.call('DEL', tag .. ':frz:team:m:' .. t) else redis.call('PEXPIRE', tag .. ':frz:team:m:' .. t, ms) end
  end
  if ms == 0 then redis.call('DEL', tag .. ':frz:teams') else redis.call('PEXPIRE', tag .. ':frz:teams', ms) end
end
