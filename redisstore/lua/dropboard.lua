-- Delete a board and all its data. Period keys come from the periods set
-- and the archive state (closed periods set to expire) and share the
-- board's hash tag, as do rolling windows' buckets and state.
-- KEYS: 1 def, 2 names, 3 names_lc, 4 names_idx, 5 recent, 6 periods,
--   7 sched (the period schedule), 8 archive (archive state: a board made
--   again under the id archives its periods anew), 9 freeze (the marker),
--   10 hooks (the webhooks hash, hooks/keys.go: every key of the board's
--   webhooks is named after it)
-- Returns {'nf'} or {'ok', periods deleted}.
-- uses: base, freeze
local k_def = KEYS[1]
local k_names = KEYS[2]
local k_names_lc = KEYS[3]
local k_names_idx = KEYS[4]
local k_recent = KEYS[5]
local k_periods = KEYS[6]
local k_sched = KEYS[7]
local k_archive = KEYS[8]
local k_freeze = KEYS[9]
local k_hooks = KEYS[10]
if redis.call('EXISTS', k_def) == 0 then return {'nf'} end
local zs = redis.call('SMEMBERS', k_periods)
-- Closed periods the archiver set to expire have left the periods set but
-- may linger until their TTL: the archive state names them. They go now,
-- or a board made again under the id would read them as its own.
local tag = tag_of(k_def)
local LETTER = {day = 'd', week = 'w', month = 'm', year = 'y', custom = 'c'}
for _, label in ipairs(redis.call('HKEYS', k_archive)) do
  local kind, key = string.match(label, '^([a-z]+):(.+)$')
  if kind and LETTER[kind] then zs[#zs + 1] = tag .. ':' .. LETTER[kind] .. ':' .. key end
end
for _, z in ipairs(zs) do
  for _, bk in ipairs(bucket_keys(z)) do redis.call('DEL', bk) end
  redis.call('DEL', z, z .. ':e', z .. ':d', z .. ':c', z .. ':bs', z .. ':race', unpack(team_keys(z)))
  redis.call('DEL', unpack(segment_keys(z)))
end
-- Its members' segment values (redisstore/segment.go).
for a in string.gmatch(redis.call('HGET', k_def, 'segments') or '', '[^,]+') do
  redis.call('DEL', tag .. ':seg:' .. a, tag .. ':seg:' .. a .. ':n')
end
redis.call('DEL', tag .. ':league:tier', tag .. ':league:closed') -- its members' league tiers and its leagues' closes (redisstore/league.go, league_close.go)
frozen_teams_expire(tag, 0)
frozen_board_expire(tag, 0)
for _, t in ipairs(redis.call('SMEMBERS', tag .. ':teams')) do redis.call('DEL', tag .. ':team:m:' .. t) end
redis.call('DEL', tag .. ':team', tag .. ':teams')
redis.call('DEL', tag .. ':r:state')
-- Friends: every member's list and every reverse index (redisstore/friends.go).
for _, m in ipairs(redis.call('SMEMBERS', tag .. ':friends')) do
  local list = tag .. ':friends:' .. m
  for _, f in ipairs(redis.call('SMEMBERS', list)) do redis.call('DEL', tag .. ':friendof:' .. f) end
  redis.call('DEL', list)
end
redis.call('DEL', tag .. ':friends')
-- Its review queue (lib/rules.lua). Its members' recent rises are not
-- listed anywhere: they expire within the hour by themselves.
redis.call('DEL', tag .. ':held', tag .. ':held:seq')
-- Its erasure records: a board made again under the id has erased nobody.
redis.call('DEL', tag .. ':erasures')
-- A frozen board's public copies (freeze.lua) go with it.
local frozen = redis.call('HGET', k_freeze, 'keys') or ''
for _, dst in string.gmatch(frozen, '(%S+) (%S+)') do
  for _, sfx in ipairs(FROZEN_SUFFIXES) do redis.call('DEL', dst .. sfx) end
  for _, k in ipairs(segment_keys(dst)) do redis.call('DEL', k) end
end
-- Its webhooks: registrations (secrets included), the state their events are
-- compared with, the event counter, the delivery queue and each hook's log.
local hk = k_hooks
for _, h in ipairs(redis.call('HKEYS', hk)) do redis.call('DEL', hk .. ':log:' .. h) end
redis.call('DEL', hk, hk .. ':state', hk .. ':seq', hk .. ':q')
redis.call('DEL', k_def, k_names, k_names_lc, k_names_idx, k_recent, k_periods, k_sched, k_archive, k_freeze)
return {'ok', #zs}
