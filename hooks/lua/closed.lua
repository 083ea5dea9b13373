-- Announce a closed period once: the state keeps, per kind, the end of the
-- last period announced, and a period is announced only if it ended later.
-- Hooks registered after the period ended are not told of it.
-- ARGV: 8 kind, 9 period JSON, 10 period end (Unix ms), 11 final top as JSON
-- rows ({m, n, s, r}), as many as the largest N.
-- Returns the number of deliveries queued, or -1 when it was announced already.
-- A board deleted meanwhile took its hooks along: its state must not come back.
if redis.call('EXISTS', K_HOOKS) == 0 then return 0 end
local kind, pjson, ends = ARGV[8], ARGV[9], tonumber(ARGV[10])
local field = 'closed:' .. kind
if tonumber(redis.call('HGET', K_STATE, field) or '0') >= ends then return -1 end
redis.call('HSET', K_STATE, field, ARGV[10])
local final = cjson.decode(ARGV[11])
local id, queued = nil, 0
for _, h in ipairs(wanting(load_hooks(), 'period.closed', kind)) do
  if (tonumber(h.created) or ends) < ends then
    id = id or event_id()
    local top = {}
    for j = 1, math.min(tonumber(h.top) or 0, #final) do top[j] = final[j] end
    queue(h, id, 'period.closed', pjson, cjson.encode({top = top}))
    queued = queued + 1
  end
end
return queued
