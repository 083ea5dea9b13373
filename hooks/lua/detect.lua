-- Compare each current period's top with the top last seen, and queue the
-- events: a new leader, members entering a hook's top N. The top is read here,
-- in board order with ranks (board's rows()), so the comparison, the new state
-- and the events are one atomic step.
-- KEYS 6.. : per period, its scores zset and its tie groups (dense ranks).
-- ARGV 8: the number of periods P; then per period its kind, its label
-- (Period.String) and its JSON for payloads.
-- State per kind: {"p": label, "n": positions looked at, "ids": member ids}.
-- No state for a kind: the first look sets it and announces nothing (a hook
-- added to a busy board does not announce the standings it found). A new
-- period of a kind already followed is compared with an empty board, so its
-- first leader and first entrants are announced.
-- Returns the number of deliveries queued.
local hs = load_hooks()
local queued = 0
for i = 0, tonumber(ARGV[8]) - 1 do
  local kind, label, pjson = ARGV[9 + 3 * i], ARGV[10 + 3 * i], ARGV[11 + 3 * i]
  local z, d = KEYS[6 + 2 * i], KEYS[7 + 2 * i]
  local leaders = wanting(hs, 'leader.changed', kind)
  local tops = wanting(hs, 'top.entered', kind)
  local m = 0
  if #leaders > 0 then m = 1 end
  for _, h in ipairs(tops) do m = math.max(m, math.min(tonumber(h.top) or 0, 100)) end
  if m == 0 then
    redis.call('HDEL', K_STATE, kind) -- nobody follows it: a stale state must not be compared later
  else
    local raw = redis.call('HGET', K_STATE, kind)
    local old, oldn, known = {}, 0, false
    if raw then
      local st = cjson.decode(raw)
      known = true
      if st.p == label then
        old, oldn = st.ids, tonumber(st.n)
      else
        oldn = m
      end
    end
    local r = rows(z, d, K_NAMES, 0, m)
    local cur, ids = {}, {}
    for j = 1, #r, 4 do
      local row = {m = entry_id(r[j]), s = r[j + 1], r = r[j + 2], n = r[j + 3] or ''}
      cur[#cur + 1] = row
      ids[#ids + 1] = row.m
    end
    if known then
      if #leaders > 0 and ids[1] and ids[1] ~= old[1] then
        local prev = cjson.null
        if old[1] then prev = {m = old[1], n = redis.call('HGET', K_NAMES, old[1]) or ''} end
        local id = event_id()
        local data = cjson.encode({leader = cur[1], previous = prev})
        for _, h in ipairs(leaders) do
          queue(h, id, 'leader.changed', pjson, data)
          queued = queued + 1
        end
      end
      -- Hooks grouped by their N, smallest first; an N beyond what the state
      -- looked at waits for the next look.
      local by_n, ns = {}, {}
      for _, h in ipairs(tops) do
        local n = tonumber(h.top)
        if n and n >= 1 and n <= oldn then
          if not by_n[n] then by_n[n] = {}; ns[#ns + 1] = n end
          table.insert(by_n[n], h)
        end
      end
      table.sort(ns)
      for _, n in ipairs(ns) do
        local was = {}
        for j = 1, math.min(n, #old) do was[old[j]] = true end
        local entered, top = {}, {}
        for j = 1, math.min(n, #cur) do
          top[#top + 1] = cur[j]
          -- A copy: a table twice in one value is a cycle to some cjson builds (miniredis').
          if not was[cur[j].m] then entered[#entered + 1] = {m = cur[j].m, s = cur[j].s, r = cur[j].r, n = cur[j].n} end
        end
        if #entered > 0 then
          local id = event_id()
          local data = cjson.encode({entered = entered, top = top})
          for _, h in ipairs(by_n[n]) do
            queue(h, id, 'top.entered', pjson, data)
            queued = queued + 1
          end
        end
      end
    end
    redis.call('HSET', K_STATE, kind, cjson.encode({p = label, n = m, ids = ids}))
  end
end
return queued
