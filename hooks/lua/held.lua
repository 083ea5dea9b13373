-- Announce the scores held for review (redisstore/held.go) since the last
-- one announced, once: the state keeps the last held id announced ("held"),
-- and the board's counter of held ids says how far to go, at most ARGV 8 a
-- call. A held score decided before its turn is passed over; hooks
-- registered after a score was held are not told of it.
-- KEYS: 6 the review queue (hash: id -> held write JSON), 7 its counter.
-- ARGV: 8 how many ids a call looks at, at most.
-- Returns the number of deliveries queued.
-- A board deleted meanwhile took its hooks along: its state must not come back.
if redis.call('EXISTS', K_HOOKS) == 0 then return 0 end
local last = tonumber(redis.call('HGET', K_STATE, 'held') or '0')
local seq = tonumber(redis.call('GET', KEYS[7]) or '0')
if seq <= last then return 0 end
local upto = math.min(seq, last + tonumber(ARGV[8]))
local hs = {}
for _, h in ipairs(load_hooks()) do
  if has(h.events, 'score.held') then hs[#hs + 1] = h end
end
local queued = 0
for id = last + 1, upto do
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
