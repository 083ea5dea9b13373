-- Announce the scores held for review (redisstore/held.go) since the last
-- one announced, once: the state keeps the last held id announced ("held"),
-- and the board's counter of held ids says how far to go. The ids still in
-- the review queue (at most board.MaxHeld) are read from it, so ids decided
-- before their turn cost nothing however many a board's life made; at most
-- ARGV 8 are announced a call, the rest at the next. Hooks registered after
-- a score was held are not told of it.
-- KEYS: 6 the review queue (hash: id -> held write JSON), 7 its counter.
-- ARGV: 8 how many held scores a call announces, at most.
-- Returns the number of deliveries queued.
-- A board deleted meanwhile took its hooks along: its state must not come back.
if redis.call('EXISTS', K_HOOKS) == 0 then return 0 end
local last = tonumber(redis.call('HGET', K_STATE, 'held') or '0')
local seq = tonumber(redis.call('GET', KEYS[7]) or '0')
if seq <= last then return 0 end
local waiting = {}
for _, k in ipairs(redis.call('HKEYS', KEYS[6])) do
  local id = tonumber(k)
  if id and id > last and id <= seq then waiting[#waiting + 1] = id end
end
table.sort(waiting)
local upto, n = seq, math.min(#waiting, tonumber(ARGV[8]))
if #waiting > n then upto = waiting[n] end
local hs = {}
for _, h in ipairs(load_hooks()) do
  if has(h.events, 'score.held') then hs[#hs + 1] = h end
end
local queued = 0
for i = 1, n do
  local id = waiting[i]
  local raw = #hs > 0 and redis.call('HGET', KEYS[6], id)
  if raw then
    local at = tonumber(cjson.decode(raw).at) or 0
    local eid
    for _, h in ipairs(hs) do
      if (tonumber(h.created) or 0) * 1000 <= at then
        eid = eid or event_id()
        queue(h, eid, 'score.held', '', '{"held_id":' .. id .. ',"held":' .. raw .. '}')
        queued = queued + 1
      end
    end
  end
end
redis.call('HSET', K_STATE, 'held', upto)
return queued
