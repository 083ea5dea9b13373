-- Delete a board and all its data. KEYS: 1 def, 2 names, 3 names:lc,
-- 4 names:idx, 5 recent, 6 periods set, 7 period schedule, 8 archive state (a
-- board made again under the id archives its periods anew), 9 freeze marker, 10 webhooks hash (hooks/keys.go:
-- every key of the board's webhooks is named after it). Period keys come from the periods set
-- and share the board's hash tag, as do rolling windows' buckets and state. Returns {'nf'} or {'ok', periods deleted}.
-- uses: base, freeze
if redis.call('EXISTS', KEYS[1]) == 0 then return {'nf'} end
local zs = redis.call('SMEMBERS', KEYS[6])
for _, z in ipairs(zs) do
  for _, bk in ipairs(bucket_keys(z)) do redis.call('DEL', bk) end
  redis.call('DEL', z, z .. ':e', z .. ':d', z .. ':c', z .. ':bs', unpack(team_keys(z)))
end
local tag = tag_of(KEYS[1])
frozen_teams_expire(tag, 0)
frozen_board_expire(tag, 0)
for _, t in ipairs(redis.call('SMEMBERS', tag .. ':teams')) do redis.call('DEL', tag .. ':team:m:' .. t) end
redis.call('DEL', tag .. ':team', tag .. ':teams')
redis.call('DEL', tag .. ':r:state')
-- A frozen board's public copies (freeze.lua) go with it.
local frozen = redis.call('HGET', KEYS[9], 'keys') or ''
for _, dst in string.gmatch(frozen, '(%S+) (%S+)') do
  for _, sfx in ipairs(FROZEN_SUFFIXES) do redis.call('DEL', dst .. sfx) end
end
-- Its webhooks: registrations (secrets included), the state their events are
-- compared with, the event counter, the delivery queue and each hook's log.
local hk = KEYS[10]
for _, h in ipairs(redis.call('HKEYS', hk)) do redis.call('DEL', hk .. ':log:' .. h) end
redis.call('DEL', hk, hk .. ':state', hk .. ':seq', hk .. ':q')
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9])
return {'ok', #zs}
