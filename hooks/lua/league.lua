-- Announce a league period's close once: the state keeps, per kind, the end
-- of the last league period announced ("league:<kind>"), and a close is
-- announced only if its period ended later. Hooks registered after the
-- close was applied are not told of it.
-- ARGV: 8 kind, 9 period JSON, 10 period end (Unix ms), 11 when the close
-- was applied (Unix ms), 12 the event's data (JSON, sent as it is; empty:
-- the results expired, so the close is only marked announced).
-- Returns the number of deliveries queued, or -1 when it was announced already.
-- A board deleted meanwhile took its hooks along: its state must not come back.
if redis.call('EXISTS', K_HOOKS) == 0 then return 0 end
local kind, pjson, ends, at = ARGV[8], ARGV[9], tonumber(ARGV[10]), tonumber(ARGV[11])
local field = 'league:' .. kind
if tonumber(redis.call('HGET', K_STATE, field) or '0') >= ends then return -1 end
redis.call('HSET', K_STATE, field, ARGV[10])
if ARGV[12] == '' then return 0 end
local id, queued = nil, 0
for _, h in ipairs(wanting(load_hooks(), 'league.closed', kind)) do
  if (tonumber(h.created) or at) < at then
    id = id or event_id()
    queue(h, id, 'league.closed', pjson, ARGV[12])
    queued = queued + 1
  end
end
return queued
