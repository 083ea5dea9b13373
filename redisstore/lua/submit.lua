-- Submit scores for one or more members to every enabled period, and record
-- what changed in the board's audit stream, in one atomic step: a change and
-- its audit entry exist together or not at all.
-- Scores are whole numbers of the board's unit (see board/score.go), so every
-- value within ±2^53 is exact and an increment that would round is refused.
-- Two modes: 'atomic' (a batch: every item is checked first and nothing is
-- written unless all pass) and 'each' (group commit: concurrent single
-- submissions in one call, each applied or refused on its own).
-- The body runs top to bottom in commented steps rather than as named phase
-- functions: a script defines its functions again on every call, and the
-- thirty closures of a phased body cost 11 µs of Redis CPU per call
-- (measured: a single score 111 µs against 88 µs), more than the phases
-- were worth. A library of functions defined once (Redis Functions) is
-- where they belong.
-- uses: ranks, teams, segments, leagues, windows, audit, freeze, rules, race
-- KEYS: 1 def, 2 names, 3 names_lc, 4 names_idx, 5 recent, 6 periods,
--   7 batch_idem (the batch's idempotency key), 8 audit, 9 audit_actor,
--   10 audit_actors, 11 archive (archive state), 12 freeze (the marker),
--   13 held (the review queue, lib/rules.lua)
-- KEYS per period: 1 zset, 2 entries, 3 distinct, 4 counts
-- KEYS per item: 1 idem (its idempotency key)
-- ARGV: 1 desc, 2 prefix_width, 3 fields_width, 4 rank_style, 5 zero_fields
--   (the fields part of no fields), 6 time (the call's time part),
--   7 version (the definition version the caller read), 8 max (magnitude),
--   9 cap, 10 batch_idem ('' none), 11 idem_ttl (seconds), 12 now (µs),
--   13 recent_len, 14 period_count (P), 15 item_count (N),
--   16 batch_fingerprint, 17 mode ('atomic' or 'each'), 18 ranks ('1'
--   compute before/after ranks, '0' scores only), 19 actor, 20 reason,
--   21 audit_keep (entries kept per stream), 22 approve (the id of a held
--   write to apply as its one item, '' none: it replaces the item's
--   arguments, and neither the contest window nor the rules hold it back)
-- ARGV per period: 1 label
-- ARGV per item: 1 op, 2 value, 3 fields ('' keeps the member's), 4 member,
--   5 name ('' none), 6 lower (the name, or else the id, lower-cased), 7 idem
--   (its idempotency key, '' none), 8 fingerprint (of the request), 9 time
--   ('' the call's: with the earliest and latest tie-breaks each item is
--   ordered by its own time, when it arrived in group commit), 10 team ('' keeps
--   the member's), 11 segments ("<attribute>\t<value>" pairs joined by tabs:
--   the values to give the member first, '' a value to leave; '' keeps all),
--   12 session (the run's token on a board with sessions, '' none, '-' the
--   console's adjustment)
-- ARGV per window: 1 period (its index among the periods, 1-based), 2 bucket
--   (the bucket of now), 3 mode ('sum' or 'best'), 4 ttl (the bucket's, in
--   seconds)
-- P periods' come first, then N items', then (ARGV) each rolling window's.
-- Returns {'ok', json} | {'replay', json} | {'nf'} | {'stale'} (the definition
--   changed since the caller read it) | {'archived', period label} (a period
--   whose keys expired to the archive: a writer whose clock is far behind;
--   nothing was written) | {'closed', 'opens' or 'closed', instant in µs}
--   (outside the board's contest window; nothing was written) and, in
--   atomic mode only,
--   {'reused', item index (0 the batch)} | {'range', item index (1-based),
--   period label, old score} | {'segfull', item index, attribute} (a value
--   past the attribute's seg.MAX_VALUES) | {'rule', item index, rule,
--   bound} (a write breaking the board's fair-play rules, lib/rules.lua) |
--   {'gone'} (the held write to approve is no longer held) |
--   {'session', item index, why} (a run token refused, lib/rules.lua).
-- The json is an array with one {periods = [...]} per item ({replayed = true}
-- for an item whose own key was seen before; in each mode {err = 'reused'},
-- {err = 'range', p = label, old = score} or {err = 'segfull', a = attribute}
-- for an item refused on its own; {err = 'rule', r = rule, l = bound} for
-- one breaking a rule, {held = true, id = its id, r = rule, l = bound} for
-- one held for review instead: nothing of it is applied; {err = 'session',
-- why = why} for a run token refused).
local k_def = KEYS[1]
local k_names = KEYS[2]
local k_names_lc = KEYS[3]
local k_names_idx = KEYS[4]
local k_recent = KEYS[5]
local k_periods = KEYS[6]
local k_batch_idem = KEYS[7]
local k_audit = KEYS[8]
local k_audit_actor = KEYS[9]
local k_audit_actors = KEYS[10]
local k_archive = KEYS[11]
local k_freeze = KEYS[12]
local k_held = KEYS[13]
local KEYS_FIXED = 13
local KEYS_PER_PERIOD = {'zset', 'entries', 'distinct', 'counts'}
local KEYS_PER_ITEM = {'idem'}
local a_zero_fields = ARGV[5]
local a_time = ARGV[6]
local a_version = ARGV[7]
local a_max = ARGV[8]
local a_cap = ARGV[9]
local a_batch_idem = ARGV[10]
local a_idem_ttl = ARGV[11]
local a_now = ARGV[12]
local a_recent_len = ARGV[13]
local a_period_count = ARGV[14]
local a_item_count = ARGV[15]
local a_batch_fingerprint = ARGV[16]
local a_mode = ARGV[17]
local a_ranks = ARGV[18]
local a_actor = ARGV[19]
local a_reason = ARGV[20]
local a_audit_keep = ARGV[21]
local a_approve = ARGV[22]
local ARGV_FIXED = 22
local ARGV_PER_PERIOD = {'label'}
local ARGV_PER_ITEM = {'op', 'value', 'fields', 'member', 'name', 'lower', 'idem', 'fingerprint', 'time', 'team', 'segments', 'session'}
local ARGV_PER_WINDOW = {'period', 'bucket', 'mode', 'ttl'}

local def = redis.call('HMGET', k_def, 'version', 'format', 'units', 'decimals', 'prefix', 'suffix', 'default_period', 'teams', 'freeze_at', 'segments', 'league', 'opens_at', 'closes_at', 'rules', 'sessions', 'created')
local version = def[1]
if not version then
  if redis.call('EXISTS', k_def) == 0 then return {'nf'} end
  version = '0'
end
-- A decimal board still holding decimals (before Store.Upgrade) is never
-- written in units: the caller reads the definition again and refuses.
if version ~= a_version or (def[2] == 'decimal' and def[3] ~= '1') then return {'stale'} end
-- A freeze whose time has come is taken before this write changes anything,
-- so the frozen standings never hold a write made after it (freeze.lua).
freeze_due(def[9], k_freeze, a_now)
local ATOMIC = a_mode == 'atomic'
local RANKS = a_ranks == '1'
-- Idempotency keys hold '<fingerprint>\n<result>': a key sent again with a
-- different request is refused rather than answered with another's result.
local function idem_split(stored)
  local fp, rest = string.match(stored, '^([0-9a-f]*)\n(.*)$')
  if not fp then return nil, stored end -- written before fingerprints
  return fp, rest
end
if ATOMIC and a_batch_idem ~= '' then
  local prev = redis.call('GET', k_batch_idem)
  if prev then
    local fp, res = idem_split(prev)
    if fp and fp ~= a_batch_fingerprint then return {'reused', 0} end
    return {'replay', res}
  end
end
-- A contest window (board/contest.go): nothing is written outside it (a
-- batch's replay above still answers; a single item's retry is refused).
-- Approving a held write is moderation of a write sent in time: the window
-- does not hold it back, nor do the rules it was held for.
local RULES = a_approve == '' and rulelib.parse(def[14], def[15], def[16])
if a_approve == '' and (def[12] or '') ~= '' and tonumber(a_now) < tonumber(def[12]) then return {'closed', 'opens', def[12]} end
if a_approve == '' and (def[13] or '') ~= '' and tonumber(a_now) >= tonumber(def[13]) then return {'closed', 'closed', def[13]} end

local MAX, CAP = tonumber(a_max), tonumber(a_cap)
local TTL, NOW, RECENT = tonumber(a_idem_ttl), a_now, tonumber(a_recent_len)
local P, N = tonumber(a_period_count), tonumber(a_item_count)

local periods = {}
local primary = 0 -- the period the audit entry reports: the board's default
for i = 1, P do
  local pk = part_at(KEYS, KEYS_FIXED, KEYS_PER_PERIOD, i)
  local label = part_at(ARGV, ARGV_FIXED, ARGV_PER_PERIOD, i).label
  periods[i] = {z = pk.zset, e = pk.entries, d = pk.distinct, c = pk.counts, label = label, touched = false}
  if string.match(label, '^[^:]+') == def[7] then primary = i end
end
if primary == 0 then primary = P end
-- A closed period the archiver has copied (a late write) is marked changed,
-- so it is copied again; one whose keys expired to the archive is final.
local labels = {}
for i = 1, P do labels[i] = periods[i].label end
local archived = redis.call('HMGET', k_archive, unpack(labels))
for i = 1, P do
  local st = archived[i]
  if st and string.find(st, ' x', 1, true) then return {'archived', periods[i].label} end
  periods[i].archived = st and true or false
end

-- The items, by the header's names: each item's table is made whole by
-- one constructor (a table grown field by field costs more).
local items = {}
local item_at, item_key_at = ARGV_FIXED + P * #ARGV_PER_PERIOD, KEYS_FIXED + P * #KEYS_PER_PERIOD
local IA, IK = {}, {} -- name -> position within an item's ARGV, KEYS
for j, name in ipairs(ARGV_PER_ITEM) do IA[name] = j end
for j, name in ipairs(KEYS_PER_ITEM) do IK[name] = j end
for n = 1, N do
  local a, k = item_at + (n - 1) * #ARGV_PER_ITEM, item_key_at + (n - 1) * #KEYS_PER_ITEM
  local raw, time = ARGV[a + IA.value], ARGV[a + IA.time]
  if time == '' then time = a_time end
  items[n] = {id = ARGV[a + IA.member], op = ARGV[a + IA.op], raw = raw, val = tonumber(raw), fields = ARGV[a + IA.fields],
    name = ARGV[a + IA.name], lower = ARGV[a + IA.lower], idem = ARGV[a + IA.idem], fp = ARGV[a + IA.fingerprint],
    time = time, team = ARGV[a + IA.team], segs = ARGV[a + IA.segments], idemkey = KEYS[k + IK.idem], session = ARGV[a + IA.session]}
end
if a_approve ~= '' and not rulelib.take(tag_of(k_def), a_approve, items[1], def[10]) then return {'gone'} end

-- Rolling windows (redisstore/window.go): their arguments follow the items'.
local TAG = tag_of(k_def)
local wins, wa = {}, item_at + N * #ARGV_PER_ITEM
for w = 1, (#ARGV - wa) / #ARGV_PER_WINDOW do wins[w] = part_at(ARGV, wa, ARGV_PER_WINDOW, w) end
periods = winlib.setup(periods, TAG, wins)
P = #periods
primary = 0
for i = 1, P do
  if string.match(periods[i].label, '^[^:]+') == def[7] then primary = i end
end
if primary == 0 then primary = P end

-- Is (s1, f1) better than (s2, f2) in board order?
local function better(s1, f1, s2, f2)
  if s1 ~= s2 then
    if DESC then return s1 > s2 end
    return s1 < s2
  end
  if DESC then return f1 > f2 end
  return f1 < f2
end

-- plan works out what an item does to one period given the member's current
-- entry and score there; it returns nil when the result would leave the range
-- the board keeps exactly.
local function plan(it, old, olds)
  local cur = olds and tonumber(olds)
  local oldf = a_zero_fields
  if FW > 0 and old then oldf = fields_of(old) end
  local newf = oldf
  if it.fields ~= '' then newf = it.fields end
  local new
  if it.op == 'incr' then new = (cur or 0) + it.val
  elseif it.op == 'decr' then new = (cur or 0) - it.val
  else new = it.val end
  -- Scores must stay exact: past 2^53 an addition rounds, which shows as a
  -- result whose difference from the old score is not the value added.
  local inexact = cur and (it.op == 'incr' or it.op == 'decr') and math.abs(new - cur) ~= it.val
  new = new + 0
  if inexact or new ~= new or new > MAX or new < -MAX then return nil end
  if it.op == 'best' and cur and not better(new, newf, cur, oldf) then
    new, newf = cur, oldf
  end
  local changed = (not old) or new ~= cur or newf ~= oldf
  local e = old
  if changed then
    if PW == 0 then e = it.id else e = newf .. it.time .. '|' .. it.id end
  end
  return {old = old, olds = olds, news = fmt(new), changed = changed, new = e, oldv = cur, newv = new}
end

-- plan_in plans an item for one period (ps: its plans of the periods
-- before). A best window (redisstore/window.go) takes every write as an offer
-- (winlib.offer); the plan records the offer. A sum window adds up changes,
-- so a set or best counts there as the change it made (winlib.change).
local function plan_in(per, it, old, olds, ps)
  if per.bk and per.mode ~= 'best' and (it.op == 'set' or it.op == 'best') then
    local d = winlib.change(periods, ps)
    -- A change of nothing leaves a member the window does not hold off it.
    if d == 0 and not old then return {old = false, olds = false, new = false, news = false, changed = false, offer = it.val} end
    if d then
      local op = 'incr'
      if d < 0 then op, d = 'decr', -d end
      local p = plan({op = op, val = d, fields = it.fields, time = it.time, id = it.id}, old, olds)
      if p then p.offer = it.val end
      return p
    end
  end
  if per.mode ~= 'best' or it.op == 'best' then
    local p = plan(it, old, olds)
    if p then p.offer = it.val end
    return p
  end
  local v = winlib.offer(periods, ps, it, olds)
  local p = plan({op = 'best', val = v, fields = it.fields, time = it.time, id = it.id}, old, olds)
  if p then p.offer = v end
  return p
end

local function current(per, id)
  local old = entry_of(per.z, per.e, id)
  local olds = old and redis.call('ZSCORE', per.z, old)
  if not olds then old = false end
  return old, olds
end

-- Reads are batched: one command per period for every member's entry and
-- score, one for the names, one for the idempotency keys. Lua calls into
-- Redis cost more than the commands they run, so a call of N items costs a
-- few commands plus what each item must write, not a dozen reads each.
local ids, known = {}, {}
for _, it in ipairs(items) do
  if not known[it.id] then
    known[it.id] = true
    ids[#ids + 1] = it.id
  end
end

-- Idempotency: an item whose key was seen is answered from its first result.
local seen, failed = {}, {} -- item -> earlier result; item -> why it is refused
local ikeys, inum = {}, {}
for n, it in ipairs(items) do
  if it.idem ~= '' then
    ikeys[#ikeys + 1] = it.idemkey
    inum[#inum + 1] = n
  end
end
if #ikeys > 0 then
  local got = redis.call('MGET', unpack(ikeys))
  for k = 1, #ikeys do
    local prev, n = got[k], inum[k]
    if prev then
      local fp, res = idem_split(prev)
      if fp and fp ~= items[n].fp then
        if ATOMIC then return {'reused', n} end
        failed[n] = {err = 'reused'}
      else
        seen[n] = res
      end
    end
  end
end

-- Every member's entry and score in each period, before the call.
local orig = {} -- period -> member -> {entry or false, score or false}
local NONE = {false, false} -- shared by every member a period does not hold: never changed
for i, per in ipairs(periods) do
  local m = {}
  local entries = ids
  if PW > 0 then entries = redis.call('HMGET', per.e, unpack(ids)) end
  local q, qid = {}, {}
  for j = 1, #ids do
    m[ids[j]] = NONE
    if entries[j] then
      q[#q + 1] = entries[j]
      qid[#qid + 1] = ids[j]
    end
  end
  if #q > 0 then
    local sc = redis.call('ZMSCORE', per.z, unpack(q))
    for k = 1, #q do
      if sc[k] then m[qid[k]] = {q[k], sc[k]} end
    end
  end
  orig[i] = m
end

-- Check every item, against the state earlier items leave. The plans are
-- what the writes below carry out: nothing else changes these keys in
-- between, unless the size cap trims a member, when they are made again.
local state, plans = {}, {} -- period -> member -> {entry, score}; item -> period -> plan
for i = 1, P do
  state[i] = {}
  for id, v in pairs(orig[i]) do state[i][id] = v end
end
-- Segments (redisstore/segment.go): an item giving a value its attribute
-- does not have yet is refused when the attribute has seg.MAX_VALUES.
-- One local for the call's segment state (a script has at most 200, and
-- the embedded store's Lua fewer registers): the board's attributes, the
-- values this call adds ("<attribute>:<value>" -> true), and per item the
-- audit lines of its moves.
local SEGS = {attrs = seg.attrs(def[10]), new = {}, moved = {}, league = seg.league(def[11])}
for n, it in ipairs(items) do
  if it.segs ~= '' and not seen[n] and not failed[n] then
    it.seg = seg.parse(it.segs)
    for _, av in ipairs(it.seg) do
      if seg.full(TAG, av[1], av[2], seg.MAX_VALUES, SEGS.new) then
        if ATOMIC then return {'segfull', n, av[1]} end
        failed[n] = {err = 'segfull', a = av[1]}
        break
      end
    end
    if not failed[n] then
      for _, av in ipairs(it.seg) do
        if av[2] ~= '' then SEGS.new[av[1] .. ':' .. av[2]] = true end
      end
    end
  end
end
-- Score sessions (board/session.go): each item's run token, consumed with
-- its write.
if RULES then
  for n, it in ipairs(items) do
    local why = not seen[n] and not failed[n] and rulelib.session(RULES, TAG, it, a_now)
    if why and ATOMIC then return {'session', n, why} end
    if why then failed[n] = {err = 'session', why = why} end
  end
end
for n, it in ipairs(items) do
  if not seen[n] and not failed[n] then
    local ps = {}
    for i, per in ipairs(periods) do
      local o = state[i][it.id]
      local p = plan_in(per, it, o[1], o[2], ps)
      if not p then
        if ATOMIC then return {'range', n, per.label, o[2] or '0'} end
        failed[n] = {err = 'range', p = per.label, old = o[2] or '0'}
        break
      end
      ps[i] = p
    end
    -- Fair play (lib/rules.lua): refused, or held for review unapplied.
    local rule, bound
    if RULES and not failed[n] then rule, bound = rulelib.check(RULES, TAG, n, it, ps, periods, a_now) end
    if rule and RULES.hold and rulelib.can_hold(RULES, TAG) then
      failed[n] = {held = true, r = rule, l = fmt(bound)}
    elseif rule then
      if ATOMIC then return {'rule', n, rule, fmt(bound)} end
      failed[n] = {err = 'rule', r = rule, l = fmt(bound)}
    end
    if not failed[n] then
      for i, p in ipairs(ps) do state[i][it.id] = {p.new, p.news} end
      plans[n] = ps
    end
  end
end

-- Names: set when given, and the id on first sight, so every member can be
-- found by name. First sights are written together at the end (or before a
-- rename, which reads the index).
local names = {}
do
  local got = redis.call('HMGET', k_names, unpack(ids))
  for j = 1, #ids do names[ids[j]] = got[j] end
end
local fresh = {names = {}, lower = {}, idx = {}}
local function flush_names()
  if #fresh.names == 0 then return end
  for j = 1, #fresh.names, 2 do frozen_name_keep(TAG, fresh.names[j]) end -- a frozen board's public: none
  redis.call('HSET', k_names, unpack(fresh.names))
  redis.call('HSET', k_names_lc, unpack(fresh.lower))
  redis.call('ZADD', k_names_idx, unpack(fresh.idx))
  fresh = {names = {}, lower = {}, idx = {}}
end
local function index_name(id, name, lower)
  flush_names()
  frozen_name_keep(TAG, id) -- a frozen board's public keeps the name of the freeze
  local oldlower = redis.call('HGET', k_names_lc, id)
  if oldlower then redis.call('ZREM', k_names_idx, oldlower .. '\0' .. id) end
  redis.call('HSET', k_names, id, name)
  redis.call('HSET', k_names_lc, id, lower)
  redis.call('ZADD', k_names_idx, 0, lower .. '\0' .. id)
end
-- name_item applies an item's name and says which name it set ('' none).
local function name_item(it)
  if it.name ~= '' then
    if names[it.id] ~= it.name then
      index_name(it.id, it.name, it.lower)
      names[it.id] = it.name
      return it.name
    end
  elseif not names[it.id] then
    local f = fresh
    f.names[#f.names + 1], f.names[#f.names + 2] = it.id, it.id
    f.lower[#f.lower + 1], f.lower[#f.lower + 2] = it.id, it.lower
    f.idx[#f.idx + 1], f.idx[#f.idx + 2] = 0, it.lower .. '\0' .. it.id
    names[it.id] = it.id
  end
  return ''
end

-- Teams (redisstore/team.go): an item naming a team moves the member there
-- first, with its scores in every period the board holds; the writes below
-- then count in the new team.
local TEAMS = def[8] or ''
local moved = {} -- item -> the team it left ('' none)
if TEAMS ~= '' then
  local zs
  for n, it in ipairs(items) do
    if it.team ~= '' and not failed[n] and not seen[n] then
      zs = zs or redis.call('SMEMBERS', k_periods)
      local was = teamlib.join(TEAMS, TAG, it.id, it.team, zs)
      if was then moved[n] = was end
    end
  end
end

-- Segments likewise: an item giving values moves the member's scores to
-- their standings first.
for n, it in ipairs(items) do
  if it.seg and not failed[n] and not seen[n] then
    local zs = redis.call('SMEMBERS', k_periods)
    for _, av in ipairs(it.seg) do
      local was = seg.join(TAG, av[1], it.id, av[2], zs)
      if was then
        local l = SEGS.moved[n] or {}
        l[#l + 1] = it.id .. '\t' .. av[1] .. '\t' .. was .. '\t' .. av[2]
        SEGS.moved[n] = l
      end
    end
  end
end

-- Write. Without a size cap the periods are written in bulk: each member
-- from the entry Redis holds to its last entry in the call, in two commands
-- a period (its old entries out, its new ones in), and the entries hash in
-- one at the end. With ranks, each result's ranks are still exact, item by
-- item: on a competition board without extra fields a rank is one plus the
-- members better than the score, counted with one ZCOUNT in what Redis
-- holds and corrected by the changes of the call's items before it (and
-- its own) that Redis does not hold yet; the periods are written every
-- CHUNK items, so a correction looks at most at CHUNK items. Other boards
-- with ranks (dense, ordinal, extra fields) and capped boards write item by
-- item and read each rank with rank_at.
-- Each item's result is JSON written here, once, and used three times:
-- its idempotency key, its recent change, the call's reply (a table for
-- cjson.encode costs several times as much).
local out, applied, lines = {}, {}, {} -- item -> its result (JSON); applied item numbers; audit lines
local pjson, done = {}, {} -- item -> its periods' JSON array; item -> applied
local ehash = {} -- period -> {id, entry, ...} to write at the end
for i = 1, P do ehash[i] = {} end
local COUNTED = RANKS and CAP == 0 and STYLE == 'competition' and FW == 0
local BULK = CAP == 0 and (COUNTED or not RANKS)
local CHUNK = 16
-- Per period: member -> {entry, score} Redis holds when it differs from
-- orig; the period's size in Redis (higher-is-better boards count from
-- it); and the scores the call's unwritten items took out and put in.
local written, size, gone, came = {}, {}, {}, {}
for i = 1, P do written[i], gone[i], came[i] = {}, {}, {} end
if COUNTED and DESC then
  for i, per in ipairs(periods) do size[i] = redis.call('ZCARD', per.z) end
end
local from = 1 -- the first item not written yet

-- better_count: how many members of period i are better than score s (its
-- text; v its number) after the items before the current one (and its own
-- change, once recorded). Higher-is-better boards count the members not
-- better (ZCOUNT from -inf: one walk of the sorted set fewer than counting
-- up to +inf) and take them from the size.
local function better_count(i, per, s, v)
  local c, g = came[i], gone[i]
  local n
  if DESC then
    n = size[i] - redis.call('ZCOUNT', per.z, '-inf', s)
    for j = 1, #c do if c[j] > v then n = n + 1 end end
    for j = 1, #g do if g[j] > v then n = n - 1 end end
  else
    n = redis.call('ZCOUNT', per.z, '-inf', '(' .. s)
    for j = 1, #c do if c[j] < v then n = n + 1 end end
    for j = 1, #g do if g[j] < v then n = n - 1 end end
  end
  return n
end

-- flush writes the applied items from 'from' to 'to': in each period each
-- member goes from the entry Redis holds to its entry after its last item.
local function flush(to)
  for i, per in ipairs(periods) do
    local last, order = {}, {}
    for n = from, to do
      if done[n] then
        local id = items[n].id
        if not last[id] then order[#order + 1] = id end
        last[id] = plans[n][i]
      end
    end
    local rem, add, h, w = {}, {}, ehash[i], written[i]
    for _, id in ipairs(order) do
      local o, p = w[id] or orig[i][id], last[id]
      if p.new and (o[1] ~= p.new or tonumber(o[2]) ~= p.newv) then
        if o[1] then
          group_del(per.d, per.c, o[1], o[2])
          if o[1] ~= p.new then rem[#rem + 1] = o[1] end
        elseif DESC and COUNTED then
          size[i] = size[i] + 1
        end
        add[#add + 1], add[#add + 2] = p.news, p.new
        if PW > 0 and o[1] ~= p.new then h[#h + 1], h[#h + 2] = id, p.new end
        group_add(per.d, per.c, p.new, p.news)
        w[id] = {p.new, p.news}
      end
    end
    if #rem > 0 then redis.call('ZREM', per.z, unpack(rem)) end
    if #add > 0 then redis.call('ZADD', per.z, unpack(add)) end
    gone[i], came[i] = {}, {}
  end
  from = to + 1
end

-- Scores as Redis wrote them, in fmt's text (a whole number is the same;
-- a Redis that writes the shortest text gives others another).
local function score_text(s)
  if string.find(s, '^%-?[1-9]%d*$') then return s end
  return fmt(tonumber(s))
end
local nr = ''
if not RANKS then nr = ',"nr":true' end -- a replay must not read rank 0 as "not on the board"
for n, it in ipairs(items) do
  if COUNTED and n - from >= CHUNK then flush(n - 1) end
  if failed[n] then
    if failed[n].held then
      failed[n].id = rulelib.hold(TAG, it, failed[n].r, NOW, a_actor)
      rulelib.take_run(it)
      if it.idem ~= '' then redis.call('SET', it.idemkey, it.fp .. '\n' .. cjson.encode(failed[n]), 'EX', TTL) end
    end
    out[n] = cjson.encode(failed[n])
  elseif seen[n] then
    local prev = cjson.decode(seen[n])
    prev.replayed = true
    out[n] = cjson.encode(prev)
  else
    local pj, prim, rest = {}, '', ''
    for i, per in ipairs(periods) do
      local p = plans[n][i]
      if CAP > 0 then
        local cur, curs = current(per, it.id)
        p = plan_in(per, it, cur, curs, plans[n]) or p
        plans[n][i] = p
      end
      local bs, br, as, ar = '', '0', '', '0'
      if p.old then
        bs = score_text(p.olds)
        if COUNTED then
          br = string.format('%d', 1 + better_count(i, per, p.olds, p.oldv))
        elseif RANKS then
          br = string.format('%d', rank_at(per.z, per.d, nil, p.old, p.olds))
        end
      end
      if p.changed then
        per.touched = true
        if COUNTED then
          local g, c = gone[i], came[i]
          if p.old then g[#g + 1] = p.oldv end
          c[#c + 1] = p.newv
        end
      end
      if p.changed and not BULK then
        if p.old then
          redis.call('ZREM', per.z, p.old)
          group_del(per.d, per.c, p.old, p.olds)
        end
        redis.call('ZADD', per.z, p.news, p.new)
        if PW > 0 then
          if CAP > 0 then
            redis.call('HSET', per.e, it.id, p.new) -- the trim below reads it
          else
            local h = ehash[i]
            h[#h + 1], h[#h + 2] = it.id, p.new
          end
        end
        group_add(per.d, per.c, p.new, p.news)
        if CAP > 0 then
          local over = redis.call('ZCARD', per.z) - CAP
          if over > 0 then
            local worst = zrange(per.z, CAP, -1)
            for j = 1, #worst, 2 do
              local we, ws = worst[j], worst[j + 1]
              redis.call('ZREM', per.z, we)
              if PW > 0 then redis.call('HDEL', per.e, entry_id(we)) end
              group_del(per.d, per.c, we, ws)
              if per.bk then winlib.forget(per.z, entry_id(we)) end
              if TEAMS ~= '' and not known[entry_id(we)] then -- the call's own members are counted below
                teamlib.apply(TEAMS, per.z, TAG, redis.call('HGET', TAG .. ':team', entry_id(we)), tonumber(ws), nil)
              end
              if #SEGS.attrs > 0 and not known[entry_id(we)] then seg.drop(TAG, SEGS.attrs, per.z, entry_id(we), we, ws) end
              if SEGS.league and not known[entry_id(we)] then seg.league_drop(per.z, entry_id(we), we, ws) end
            end
          end
        end
      end
      -- Still on the board? Only a size cap can have taken it off.
      if p.new and (CAP == 0 or redis.call('ZSCORE', per.z, p.new)) then
        as = p.news
        if COUNTED then
          ar = string.format('%d', 1 + better_count(i, per, p.news, p.newv))
        elseif RANKS then
          ar = string.format('%d', rank_at(per.z, per.d, nil, p.new, p.news))
        end
      end
      pj[i] = '{"p":"' .. per.label .. '","bs":"' .. bs .. '","br":' .. br .. ',"as":"' .. as .. '","ar":' .. ar .. '}'
      if i == primary then
        prim = bs .. '\t' .. br .. '\t' .. as .. '\t' .. ar
      else
        rest = rest .. '\t' .. per.label .. '\t' .. bs .. '\t' .. br .. '\t' .. as .. '\t' .. ar
      end
    end
    local renamed = name_item(it)
    pjson[n] = '[' .. table.concat(pj, ',') .. ']'
    local res = '{"periods":' .. pjson[n] .. nr .. '}'
    if it.idem ~= '' then redis.call('SET', it.idemkey, it.fp .. '\n' .. res, 'EX', TTL) end
    out[n] = res
    applied[#applied + 1], done[n] = n, true
    lines[#lines + 1] = it.id .. '\t' .. it.op .. '\t' .. it.raw .. '\t' .. prim .. '\t' .. renamed .. '\t' .. rest
  end
end
if BULK then flush(#items) end
local touched = {}
for i, per in ipairs(periods) do
  if #ehash[i] > 0 then redis.call('HSET', per.e, unpack(ehash[i])) end
  if per.touched then touched[#touched + 1] = per.z end
  if per.touched and per.archived then redis.call('HSET', k_archive, per.label, '0 ' .. NOW .. ' changed') end
end
if #touched > 0 then redis.call('SADD', k_periods, unpack(touched)) end
-- The windows' buckets, and the teams, follow what the call did.
winlib.record(periods, plans, items, applied, CAP > 0)
if RULES then rulelib.record(RULES, TAG, items, applied, NOW) end
if a_approve ~= '' and #applied > 0 then redis.call('HDEL', k_held, a_approve) end
if #applied > 0 then
  teamlib.follow(TEAMS, TAG, periods, ids, orig, CAP == 0 and state or nil)
  seg.follow(TAG, SEGS.attrs, periods, ids, orig, CAP == 0 and state or nil)
  seg.league_follow(TAG, SEGS.league, periods, ids, orig, CAP == 0 and state or nil) -- cohorts (redisstore/league.go)
  racelib.follow(periods, ids, orig, CAP == 0 and state or nil, NOW) -- the top's history (redisstore/race.go)
end
flush_names()
-- Recent changes: only the newest RECENT survive the trim, so only they are pushed.
if #applied > 0 then
  local recent = {}
  for j = math.max(1, #applied - RECENT + 1), #applied do
    local n = applied[j]
    local it = items[n]
    local m = it.id
    if string.find(m, '[^%w%-_.:@ ]') then m = cjson.encode(m) else m = '"' .. m .. '"' end -- JSON escapes none of these
    recent[#recent + 1] = '{"t":"' .. NOW .. '","m":' .. m .. ',"op":"' .. it.op .. '","v":"' .. it.raw ..
      '","periods":' .. pjson[n] .. nr .. '}'
  end
  -- Nothing may fail after the first write (Redis keeps what a failing
  -- script wrote): no LPUSH without values.
  if #recent > 0 then
    redis.call('LPUSH', k_recent, unpack(recent))
    redis.call('LTRIM', k_recent, 0, RECENT - 1)
  end
  -- One audit entry for the call: who, why, the format to show the values
  -- in, and per applied item (tab-separated; ids and names hold no control
  -- characters) member, op, value, score and rank before and after in the
  -- board's default period, the display name it set ('' none), '' (the
  -- entry's period), then for each other period its label, score and rank
  -- before and after.
  local entry = {'t', string.format('%.0f', math.floor(tonumber(NOW) / 1000)), 'actor', a_actor, 'action', 'scores',
    'board', string.match(k_def, '^lb:{(.*)}:def$'), 'period', periods[primary] and periods[primary].label or '',
    'reason', a_reason, 'fmt', def[2] or '', 'dec', def[4] or '', 'pre', def[5] or '', 'suf', def[6] or '',
    'items', table.concat(lines, '\n')}
  local tl = {}
  for _, n in ipairs(applied) do
    if moved[n] then tl[#tl + 1] = items[n].id .. '\t' .. moved[n] .. '\t' .. items[n].team end
  end
  if #tl > 0 then
    entry[#entry + 1], entry[#entry + 2] = 'teams', table.concat(tl, '\n') -- member, team left, team joined
  end
  local sl = {}
  for _, n in ipairs(applied) do
    for _, l in ipairs(SEGS.moved[n] or {}) do sl[#sl + 1] = l end
  end
  if #sl > 0 then
    entry[#entry + 1], entry[#entry + 2] = 'segments', table.concat(sl, '\n') -- member, attribute, value left, value joined
  end
  audit_add(k_audit, k_audit_actor, k_audit_actors, a_audit_keep, a_actor, entry, #lines)
end
local json = '[' .. table.concat(out, ',') .. ']'
if ATOMIC and a_batch_idem ~= '' then redis.call('SET', k_batch_idem, a_batch_fingerprint .. '\n' .. json, 'EX', TTL) end
return {'ok', json}
