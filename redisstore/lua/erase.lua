-- Erase a member of a board, everything Redis holds of it in the board's
-- hash slot, in one atomic step (redisstore/erase.go): a write for the
-- member lands before (and is erased) or after (a new member of that id).
-- Its entries in every period (held, or closed and lingering until their
-- expiry) and its rolling windows' buckets, its points in the periods'
-- races, its frozen copies, team, names, friends (its list and its place
-- in others'), its fair-play rises and held writes, recent changes, the
-- webhook state and queued deliveries, and the archive passes' snapshots
-- of the periods it was in. Pseudonymise (the default) renames it
-- everywhere; remove takes it out of the open periods (all time,
-- windows, and the current calendar periods the caller names), their team
-- standings following, and renames it in the rest. Closed periods the
-- archiver copied are marked changed, so their copy is made again. The
-- audit streams are rewritten afterwards, a chunk at a time
-- (redactstream.lua); this step appends its own entry, which names the
-- pseudonym only, and records its id (the cut: where the member's entries
-- stop) in the erasure's record.
-- uses: teams, segments, leagues, audit, freeze, erase, race
-- KEYS: 1 def, 2 names, 3 names_lc, 4 names_idx, 5 recent, 6 periods,
--   7 archive (archive state), 8 freeze (the marker), 9 team (member ->
--   team), 10 teams (the set of teams), 11 hooks (the webhooks hash: its
--   state and queue are named after it), 12 snaps (the archive snapshots
--   record), 13 erasures (the board's erasure records), 14 audit,
--   15 audit_actor, 16 audit_actors
-- ARGV: 1 desc, 2 prefix_width, 3 fields_width, 4 rank_style, 5 member,
--   6 pseudonym, 7 mode ('pseudonymise' or 'remove'), 8 digest (the
--   member's record: a digest of its id), 9 force ('1': record the erasure
--   though Redis holds nothing of the member), 10 hooks_group (the webhook
--   queue's consumer group), 11 actor, 12 audit_keep (entries kept per
--   stream), 13 now (µs: a freeze whose time has come is taken first),
--   14.. open (the zsets of the board's current calendar periods)
-- Returns {'nf'}, {'ok', 'none'} (nothing of the member, no record),
-- {'ok', 'record', the record} (nothing of the member; an earlier erasure's
-- record: 'pending <pseudonym> <mode> <cut>' or 'done <mode>'), or {'ok',
-- 'erased', the new record, items changed, {names it had}, {zsets changed}}.
local k_def = KEYS[1]
local k_names = KEYS[2]
local k_names_lc = KEYS[3]
local k_names_idx = KEYS[4]
local k_recent = KEYS[5]
local k_periods = KEYS[6]
local k_archive = KEYS[7]
local k_freeze = KEYS[8]
local k_team = KEYS[9]
local k_teams = KEYS[10]
local k_hooks = KEYS[11]
local k_snaps = KEYS[12]
local k_erasures = KEYS[13]
local k_audit = KEYS[14]
local k_audit_actor = KEYS[15]
local k_audit_actors = KEYS[16]
local a_member = ARGV[5]
local a_pseudonym = ARGV[6]
local a_mode = ARGV[7]
local a_digest = ARGV[8]
local a_force = ARGV[9]
local a_hooks_group = ARGV[10]
local a_actor = ARGV[11]
local a_audit_keep = ARGV[12]
local a_now = ARGV[13]
local ARGV_FIXED = 13
if redis.call('EXISTS', k_def) == 0 then return {'nf'} end
local def = redis.call('HMGET', k_def, 'teams', 'freeze_at', 'segments')
local TAG = tag_of(k_def)
freeze_due(def[2], k_freeze, a_now)
local OLD, NEW, REMOVE, TEAMS = a_member, a_pseudonym, a_mode == 'remove', def[1] or ''
local open = {}
for i = ARGV_FIXED + 1, #ARGV do open[ARGV[i]] = true end
local function is_open(z)
  local label = label_of(z)
  return label == 'all' or string.sub(label, 1, 4) == 'last' or open[z] == true
end

local found, kept = 0, 0
local touched, labels, removed = {}, {}, {} -- zsets changed; their period labels; {zset, score} taken out

-- The member's entry e (score s) in zset z becomes the pseudonym's: the
-- same tie-break prefix, so the same place among equal scores.
local function rename_in(z, e, s)
  local ne = NEW
  if PW > 0 then ne = string.sub(e, 1, PW + 1) .. NEW end
  redis.call('ZREM', z, e)
  redis.call('ZADD', z, s, ne)
  if PW > 0 then
    redis.call('HDEL', z .. ':e', OLD)
    redis.call('HSET', z .. ':e', NEW, ne)
  end
end

-- erase_in erases the member in zset z: a period's (live is z) or a
-- freeze's copy of period live (frozen).
local function erase_in(z, live, frozen)
  local out = REMOVE and is_open(live)
  if not frozen then
    for _, bk in ipairs(bucket_keys(z)) do
      local v = redis.call('ZSCORE', bk, OLD)
      if v then
        redis.call('ZREM', bk, OLD)
        if not out then redis.call('ZADD', bk, v, NEW) end
        found = found + 1
      end
    end
  end
  -- Its place in a cohort (redisstore/league.go): the pseudonym's, or gone
  -- with its scores; the cohort's standing follows below (seg.rename).
  found = found + seg.league_erase(z, OLD, not out and NEW)
  found = found + racelib.erase(z, OLD, not out and NEW or nil) -- its points in the race (lib/race.lua), the freeze's copy too
  local e = entry_of(z, z .. ':e', OLD)
  local s = e and redis.call('ZSCORE', z, e)
  if not s then return end
  found = found + 1
  touched[#touched + 1] = z
  if not frozen then
    local label = label_of(z)
    labels[label] = true
    local st = redis.call('HGET', k_archive, label)
    if st and not string.find(st, ' x', 1, true) then redis.call('HSET', k_archive, label, '0 ' .. now_ms() .. '000 changed') end
  end
  if out then
    redis.call('ZREM', z, e)
    if PW > 0 then redis.call('HDEL', z .. ':e', OLD) end
    group_del(z .. ':d', z .. ':c', e, s)
    removed[#removed + 1] = {z, tonumber(s)}
    seg.rename(z, e, s, false) -- its segment standings (redisstore/segment.go) follow
  else
    local ne = NEW
    if PW > 0 then ne = string.sub(e, 1, PW + 1) .. NEW end
    seg.rename(z, e, s, ne)
    rename_in(z, e, s)
    if not frozen then kept = kept + 1 end
  end
end

-- The periods: those that hold data, and closed ones set to expire that
-- linger until their TTL (the archive state names them); then the copies
-- of a freeze.
local zs, seen = {}, {}
for _, z in ipairs(redis.call('SMEMBERS', k_periods)) do
  seen[z], zs[#zs + 1] = true, z
end
local LETTER = {day = 'd', week = 'w', month = 'm', year = 'y', custom = 'c'}
for _, label in ipairs(redis.call('HKEYS', k_archive)) do
  local kind, key = string.match(label, '^([a-z]+):(.+)$')
  local z = kind and LETTER[kind] and (TAG .. ':' .. LETTER[kind] .. ':' .. key)
  if z and not seen[z] and redis.call('EXISTS', z) == 1 then seen[z], zs[#zs + 1] = true, z end
end
for _, z in ipairs(zs) do erase_in(z, z, false) end
for live, fz in string.gmatch(redis.call('HGET', k_freeze, 'keys') or '', '(%S+) (%S+)') do erase_in(fz, live, true) end

-- Names: the member's go (the name index's entry too); the pseudonym is
-- named by itself, as every member is on first sight (submit.lua).
local names = {}
local name, lower = redis.call('HGET', k_names, OLD), redis.call('HGET', k_names_lc, OLD)
if name or lower then
  found = found + 1
  if name and name ~= OLD then names[#names + 1] = name end
  if lower then redis.call('ZREM', k_names_idx, lower .. '\0' .. OLD) end
  redis.call('HDEL', k_names, OLD)
  redis.call('HDEL', k_names_lc, OLD)
end
local fname = erase_frozen_names(TAG, OLD)
if fname then
  found = found + 1
  if fname ~= '' and fname ~= OLD then names[#names + 1] = fname end
end
if kept > 0 then
  redis.call('HSET', k_names, NEW, NEW)
  redis.call('HSET', k_names_lc, NEW, NEW)
  redis.call('ZADD', k_names_idx, 0, NEW .. '\0' .. NEW)
end

-- The team: the pseudonym keeps it while it keeps scores (closed periods
-- in remove mode); the standings of the periods it left follow.
local team = redis.call('HGET', k_team, OLD)
local keep_as = NEW
if kept == 0 then keep_as = nil end
if team then
  found = found + 1
  local set = TAG .. ':team:m:' .. team
  redis.call('HDEL', k_team, OLD)
  redis.call('SREM', set, OLD)
  if keep_as then
    redis.call('HSET', k_team, NEW, team)
    redis.call('SADD', set, NEW)
  elseif redis.call('SCARD', set) == 0 then
    redis.call('SREM', k_teams, team)
  end
  for _, r in ipairs(removed) do teamlib.apply(TEAMS, r[1], TAG, team, r[2], nil) end
end
found = found + erase_frozen_teams(TAG, OLD, keep_as)
-- Its segment values: the pseudonym's while it keeps scores.
for a in string.gmatch(def[3] or '', '[^,]+') do
  local hk = TAG .. ':seg:' .. a
  local v = redis.call('HGET', hk, OLD)
  if v then
    found = found + 1
    redis.call('HDEL', hk, OLD)
    if keep_as then
      redis.call('HSET', hk, NEW, v)
    elseif redis.call('HINCRBY', hk .. ':n', v, -1) <= 0 then
      redis.call('HDEL', hk .. ':n', v)
    end
  end
end

-- Its league tier: the pseudonym's while it keeps scores; a freeze's copy
-- of the tiers likewise.
found = found + seg.tier_erase(TAG, OLD, keep_as or false)
seg.tier_erase(TAG .. ':frz', OLD, keep_as or false)

-- Friends: the member's own list, and the member in every list that names
-- it (its reverse index says which); a pseudonym has no friends.
local function erase_friends()
  local n, own, of, index = 0, TAG .. ':friends:' .. OLD, TAG .. ':friendof:' .. OLD, TAG .. ':friends'
  for _, f in ipairs(redis.call('SMEMBERS', own)) do
    redis.call('SREM', TAG .. ':friendof:' .. f, OLD)
    n = n + 1
  end
  for _, m in ipairs(redis.call('SMEMBERS', of)) do
    local list = TAG .. ':friends:' .. m
    redis.call('SREM', list, OLD)
    if redis.call('EXISTS', list) == 0 then redis.call('SREM', index, m) end
    n = n + 1
  end
  redis.call('DEL', own, of)
  redis.call('SREM', index, OLD)
  return n
end
found = found + erase_friends()

-- Fair play (lib/rules.lua): its recent rises, its score sessions, and its
-- writes held for review, dropped (an erasure withdraws what the member sent; the queue
-- holds at most board.MaxHeld).
local function erase_held()
  local n, k = 0, TAG .. ':held'
  local flat = redis.call('HGETALL', k)
  for i = 1, #flat, 2 do
    local ok, h = pcall(cjson.decode, flat[i + 1])
    if ok and type(h) == 'table' and h.m == OLD then
      redis.call('HDEL', k, flat[i])
      n = n + 1
    end
  end
  local runs = TAG .. ':sess:m:' .. OLD -- its score sessions (redisstore/session.go)
  for _, k in ipairs(redis.call('SMEMBERS', runs)) do n = n + redis.call('DEL', k) end
  return n + redis.call('DEL', TAG .. ':rise:' .. OLD, runs)
end
found = found + erase_held()

-- Recent changes (dropped in remove mode), webhooks, archive snapshots.
local recent_as = NEW
if REMOVE then recent_as = nil end
found = found + erase_list(k_recent, OLD, recent_as) + erase_list(TAG .. ':frz:recent', OLD, recent_as)
found = found + erase_hook_state(k_hooks .. ':state', OLD, NEW) + erase_queue(k_hooks .. ':q', a_hooks_group, OLD, NEW)
erase_snapshots(k_snaps, labels)

local rec = redis.call('HGET', k_erasures, a_digest)
if found == 0 and a_force ~= '1' then
  if rec then return {'ok', 'record', rec} end
  return {'ok', 'none'}
end
-- The erasure's own entry names the pseudonym only; the record's cut is
-- its id: entries up to it that name the id are the member's, later ones
-- are whoever holds the id from now on.
local after = 'pseudonymised as ' .. NEW
if REMOVE then after = 'removed from the open periods (' .. NEW .. ' in closed ones)' end
audit_add(k_audit, k_audit_actor, k_audit_actors, a_audit_keep, a_actor, {'t', now_ms(), 'actor', a_actor, 'action', 'member.erase',
  'board', string.match(k_def, '^lb:{(.*)}:def$'), 'member', NEW, 'before', '(an erased member)', 'after', after, 'reason', ''})
local cut = redis.call('XREVRANGE', k_audit, '+', '-', 'COUNT', 1)[1][1]
rec = table.concat({'pending', NEW, a_mode, cut}, ' ')
redis.call('HSET', k_erasures, a_digest, rec)
return {'ok', 'erased', rec, found, names, touched}
