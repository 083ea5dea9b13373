-- erase: the parts of a member's erasure (erase.lua, redisstore/erase.go)
-- that rewrite a board's lists, webhook queue and frozen copies. Each takes
-- the member's id (old) and its pseudonym (new, or nil to drop what holds
-- the member) and returns how many items it changed.
-- uses: encoding

-- erase_list rewrites a list of recent changes (JSON, member in 'm').
local function erase_list(key, old, new)
  local items = redis.call('LRANGE', key, 0, -1)
  local out, n = {}, 0
  for _, raw in ipairs(items) do
    local ok, doc = pcall(cjson.decode, raw)
    if ok and type(doc) == 'table' and doc.m == old then
      n = n + 1
      if new then
        doc.m = new
        out[#out + 1] = cjson.encode(doc)
      end
    else
      out[#out + 1] = raw
    end
  end
  if n > 0 then
    redis.call('DEL', key)
    if #out > 0 then redis.call('RPUSH', key, unpack(out)) end
  end
  return n
end

-- erase_rows renames the member in a webhook event's rows ({m, n, s, r}):
-- its id becomes new, its name goes. Returns whether any row was its.
local function erase_rows(rows, old, new)
  if type(rows) ~= 'table' then return false end
  if rows.m ~= nil then rows = {rows} end
  local hit = false
  for _, r in ipairs(rows) do
    if type(r) == 'table' and r.m == old then
      r.m, r.n, hit = new, '', true
    end
  end
  return hit
end

-- erase_moves renames the member in a league.closed event's promotions
-- and relegations ({member, name, ...}, hooks/league.go) as erase_rows
-- does. Returns whether any was its.
local function erase_moves(league, old, new)
  if type(league) ~= 'table' then return false end
  local hit = false
  for _, k in ipairs({'promoted', 'relegated'}) do
    if type(league[k]) == 'table' then
      for _, m in ipairs(league[k]) do
        if type(m) == 'table' and m.member == old then
          m.member, m.name, hit = new, '', true
        end
      end
    end
  end
  return hit
end

-- erase_hook_state renames the member in the top N each kind last saw
-- (hooks/keys.go), so the next look compares with what the boards hold.
local function erase_hook_state(key, old, new)
  local flat, n = redis.call('HGETALL', key), 0
  for i = 1, #flat - 1, 2 do
    local ok, st = pcall(cjson.decode, flat[i + 1])
    if ok and type(st) == 'table' and type(st.ids) == 'table' then
      local hit = false
      for j, id in ipairs(st.ids) do
        if id == old then st.ids[j], hit = new, true end
      end
      if hit then
        redis.call('HSET', key, flat[i], cjson.encode(st))
        n = n + 1
      end
    end
  end
  return n
end

-- Whether stream entry id a is at or before b ('<ms>-<seq>').
local function erase_id_le(a, b)
  local am, as = string.match(a, '^(%d+)%-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)%-(%d+)$')
  if not am or not bm then return false end
  am, as, bm, bs = tonumber(am), tonumber(as), tonumber(bm), tonumber(bs)
  return am < bm or (am == bm and as <= bs)
end

-- The last id a consumer group of stream q was handed, or nil when the
-- group does not exist (nothing was handed out).
local function erase_group_last(q, group)
  local ok, gs = pcall(redis.call, 'XINFO', 'GROUPS', q)
  if not ok then return nil end
  for _, g in ipairs(gs) do
    local name, last
    for i = 1, #g - 1, 2 do
      if g[i] == 'name' then name = g[i + 1] elseif g[i] == 'last-delivered-id' then last = g[i + 1] end
    end
    if name == group and last then return last end
  end
  return nil
end

-- erase_held_event renames the member in a score.held event's write (the
-- review queue's JSON, lib/rules.lua, hooks/held.go) as erase_rows does,
-- its lower-cased name gone too. Returns whether the write was its.
local function erase_held_event(held, old, new)
  if type(held) ~= 'table' or held.m ~= old then return false end
  held.m, held.name, held.lower = new, '', ''
  return true
end

-- erase_queue rewrites the deliveries of webhook queue q whose payload
-- names the member. An entry cannot change in place: one already delivered
-- is deleted (its payload was sent, it is kept for nothing); one not yet
-- sent, or waiting for a retry, is queued again with the member renamed
-- (a new delivery id; the same event id and queued time) and the old one
-- acknowledged and deleted.
local function erase_queue(q, group, old, new)
  if redis.call('EXISTS', q) == 0 then return 0 end
  local needle = string.sub(cjson.encode(old), 2, -2) -- the id as JSON writes it
  local last = erase_group_last(q, group)
  local start, n, again = '-', 0, {}
  while true do
    local es = redis.call('XRANGE', q, start, '+', 'COUNT', 500)
    for _, e in ipairs(es) do
      local f, at = e[2], nil
      for i = 1, #f - 1, 2 do
        if f[i] == 'data' then at = i + 1 end
      end
      if at and string.find(f[at], needle, 1, true) then
        local ok, d = pcall(cjson.decode, f[at])
        if ok and type(d) == 'table' then
          local hit = false
          for _, k in ipairs({'leader', 'previous', 'entered', 'top'}) do
            if erase_rows(d[k], old, new) then hit = true end
          end
          if erase_moves(d.league, old, new) then hit = true end
          if erase_held_event(d.held, old, new) then hit = true end
          if hit then
            n = n + 1
            local pending = last ~= nil and #redis.call('XPENDING', q, group, e[1], e[1], 1) > 0
            if pending or last == nil or not erase_id_le(e[1], last) then
              f[at] = cjson.encode(d)
              again[#again + 1] = f
            end
            if pending then redis.call('XACK', q, group, e[1]) end
            redis.call('XDEL', q, e[1])
          end
        end
      end
    end
    if #es < 500 then break end
    start = '(' .. es[#es][1]
  end
  for _, f in ipairs(again) do redis.call('XADD', q, '*', unpack(f)) end
  return n
end

-- erase_frozen_names drops the member's names kept for a frozen board's
-- public (freeze.lua's frozen_name_keep) and returns the name kept ('' or
-- nil: none).
local function erase_frozen_names(tag, old)
  local name = redis.call('HGET', tag .. ':frz:names', old)
  redis.call('HDEL', tag .. ':frz:names', old)
  local idx, suffix = tag .. ':frz:names:idx', '\0' .. old
  local total = redis.call('ZCARD', idx)
  local gone = {}
  for off = 0, total - 1, 1000 do
    for _, e in ipairs(redis.call('ZRANGE', idx, off, off + 999)) do
      if string.sub(e, -#suffix) == suffix then gone[#gone + 1] = e end
    end
  end
  if #gone > 0 then redis.call('ZREM', idx, unpack(gone)) end
  return name
end

-- erase_frozen_teams moves the member in the teams' members as they stood
-- at a freeze: to new, or out (new nil).
local function erase_frozen_teams(tag, old, new)
  local n = 0
  for _, t in ipairs(redis.call('SMEMBERS', tag .. ':frz:teams')) do
    local set = tag .. ':frz:team:m:' .. t
    if redis.call('SREM', set, old) == 1 then
      n = n + 1
      if new then redis.call('SADD', set, new) end
    end
  end
  return n
end

-- erase_snapshots drops the copies archive passes took (snapshot.lua) of
-- the periods whose labels are set in labels: a pass in flight then fails
-- its row count and records nothing, and the next pass copies the period
-- as it now stands.
local function erase_snapshots(snaps, labels)
  local flat, n = redis.call('HGETALL', snaps), 0
  for i = 1, #flat - 1, 2 do
    local z, label = flat[i], string.match(flat[i + 1], '^(%S+)')
    if label and labels[label] then
      redis.call('DEL', z, z .. ':d', z .. ':c', z .. ':t', z .. ':tn', z .. ':t:d', z .. ':t:c')
      redis.call('HDEL', snaps, z)
      n = n + 1
    end
  end
  return n
end
