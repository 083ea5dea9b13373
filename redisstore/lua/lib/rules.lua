-- rules: a board's fair-play rules (board/rules.go), checked by submit.lua
-- before it writes; the rises each member made in the last hour; and the
-- review queue of writes held for a person to look at (redisstore/held.go).
-- uses: encoding, windows

-- rulelib holds the library's functions: one local (a script may have 200,
-- and submit.lua needs its own).
local rulelib = {}

-- rulelib.MAX_HELD bounds a board's review queue (board.MaxHeld): a write
-- to hold past it is refused instead, naming its rule.
rulelib.MAX_HELD = 1000

-- rulelib.parse reads the definition's 'rules' field ("max_score=1000
-- on_break=hold"), nil for none. The table also carries the call's state:
-- per item its rise (rise), per member the rises of the call's earlier
-- items (pending), and the room left in the review queue (room, read once).
-- With sess, the definition's 'sessions' field ("<min s> <max s>",
-- board/session.go), it also holds the board's run times (smin, smax), the
-- run tokens the call's items took (taken), and when the board was made
-- (created, the definition's field): a run of a board deleted and made
-- again under its id is not one of this board's.
function rulelib.parse(raw, sess, created)
  if (not raw or raw == '') and (not sess or sess == '') then return nil end
  local r = {rise = {}, pending = {}, taken = {}}
  for name, v in string.gmatch(raw or '', '([%w_]+)=([%w%-]+)') do
    if name == 'on_break' then r.hold = v == 'hold' else r[name] = tonumber(v) end
  end
  local mn, mx = string.match(sess or '', '^(%d+) (%d+)$')
  if mn then r.smin, r.smax, r.created = tonumber(mn), tonumber(mx), created end
  return r
end

-- rulelib.session checks item it's run token at now (µs) on a board with
-- sessions: nil when it may write, else why not ('missing', 'unknown',
-- 'used', 'member', 'early', 'expired'). A token ('-' the console's: a
-- person's adjustment, not a run) is kept under the SHA-1 of its text
-- (redisstore/session.go): m its member, t when issued (µs), b when its
-- board was made, used once used. The item notes its key for
-- rulelib.take_run.
function rulelib.session(r, tag, it, now)
  if not r.smin or it.session == '-' then return nil end
  if it.session == '' then return 'missing' end
  local k = tag .. ':sess:' .. redis.sha1hex(it.session)
  if r.taken[k] then return 'used' end
  local s = redis.call('HMGET', k, 'm', 't', 'used', 'b')
  if not s[1] or (s[4] and r.created and s[4] ~= r.created) then return 'unknown' end
  if s[3] then return 'used' end
  if s[1] ~= it.id then return 'member' end
  local age = (tonumber(now) - tonumber(s[2])) / 1000000
  if age < r.smin then return 'early' end
  if age > r.smax then return 'expired' end
  r.taken[k], it.run = true, k
  return nil
end

-- rulelib.take_run marks the run token of an item written (applied or
-- held) used.
function rulelib.take_run(it)
  if it.run then redis.call('HSET', it.run, 'used', '1') end
end

-- The key of a member's recent rises: a sorted set of "<second>:<sum>"
-- scored by the Unix second, at most one entry a second, an hour kept.
local function rise_key(tag, id) return tag .. ':rise:' .. id end

-- rulelib.rises is what a member rose in the last minute and hour before
-- now (Unix seconds; a minute is the seconds after sec - 60 up to sec).
local function rises(tag, id, sec)
  local m, h = 0, 0
  for _, e in ipairs(redis.call('ZRANGEBYSCORE', rise_key(tag, id), '(' .. (sec - 3600), '+inf')) do
    local s, v = string.match(e, '^(%-?%d+):(.*)$')
    v = tonumber(v) or 0
    h = h + v
    if tonumber(s) > sec - 60 then m = m + v end
  end
  return m, h
end

-- rulelib.check holds item n (it, its plans ps over periods) to the rules
-- at now (µs): nil when it passes, else the rule it breaks and its bound.
-- It notes the item's rise for rulelib.record.
function rulelib.check(r, tag, n, it, ps, periods, now)
  if r.min_value and it.val < r.min_value then return 'min_value', r.min_value end
  if r.max_value and it.val > r.max_value then return 'max_value', r.max_value end
  if r.max_score then
    for _, p in ipairs(ps) do
      -- A member already past the bound (rules added later) may still fall.
      if p.changed and p.newv and p.newv > r.max_score and (not p.oldv or p.newv > p.oldv) then return 'max_score', r.max_score end
    end
  end
  if not r.max_rise_per_minute and not r.max_rise_per_hour then return nil end
  local ref = winlib.ref(periods, ps) or ps[1]
  local rise = 0
  if ref and ref.newv then
    rise = ref.newv - (ref.oldv or 0)
    if not DESC then rise = -rise end
  end
  if rise <= 0 then return nil end
  local sec = math.floor(tonumber(now) / 1000000)
  local m, h = rises(tag, it.id, sec)
  local before = r.pending[it.id] or 0
  if r.max_rise_per_minute and m + before + rise > r.max_rise_per_minute then return 'max_rise_per_minute', r.max_rise_per_minute end
  if r.max_rise_per_hour and h + before + rise > r.max_rise_per_hour then return 'max_rise_per_hour', r.max_rise_per_hour end
  r.rise[n], r.pending[it.id] = rise, before + rise
  return nil
end

-- rulelib.record adds the rises of the applied items to their members'
-- sets at now (µs).
function rulelib.record(r, tag, items, applied, now)
  local sec = math.floor(tonumber(now) / 1000000)
  for _, n in ipairs(applied) do
    rulelib.take_run(items[n])
    local rise = r.rise[n]
    if rise then
      local k = rise_key(tag, items[n].id)
      local cur = redis.call('ZRANGEBYSCORE', k, sec, sec)
      if cur[1] then
        rise = rise + tonumber(string.match(cur[1], ':(.*)$'))
        redis.call('ZREM', k, cur[1])
      end
      redis.call('ZADD', k, sec, sec .. ':' .. fmt(rise))
      redis.call('ZREMRANGEBYSCORE', k, '-inf', sec - 3600)
      redis.call('EXPIRE', k, 3660)
    end
  end
end

-- rulelib.can_hold takes one place in the board's review queue for this
-- call, false when it is full.
function rulelib.can_hold(r, tag)
  if not r.room then r.room = rulelib.MAX_HELD - redis.call('HLEN', tag .. ':held') end
  if r.room <= 0 then return false end
  r.room = r.room - 1
  return true
end

-- rulelib.hold keeps item it, which broke rule, in the board's review
-- queue (field: its id from the board's counter; value: JSON of what
-- submit.lua needs to apply it later with its own tie-break time, and who
-- sent it when), and returns its id.
function rulelib.hold(tag, it, rule, now, actor)
  local id = redis.call('INCR', tag .. ':held:seq')
  redis.call('HSET', tag .. ':held', id, cjson.encode({m = it.id, op = it.op, v = it.raw, f = it.fields, name = it.name,
    lower = it.lower, team = it.team, segs = it.segs, tp = it.time, at = tostring(now), rule = rule, by = actor}))
  return id
end

-- rulelib.take reads held write id into item it, for its approval: the
-- write as it was sent, with its own time, its segment values kept only
-- for the attributes the board still has (attrs, the definition's
-- 'segments': one taken off meanwhile is not made again). False when it
-- is not held (an approval or a rejection came first).
function rulelib.take(tag, id, it, attrs)
  local raw = redis.call('HGET', tag .. ':held', id)
  if not raw then return false end
  local h = cjson.decode(raw)
  it.id, it.op, it.raw, it.val, it.fields, it.name = h.m, h.op, h.v, tonumber(h.v), h.f, h.name
  it.lower, it.team, it.time, it.idem = h.lower, h.team, h.tp, ''
  local has, segs = {}, {}
  for a in string.gmatch(attrs or '', '[^,]+') do has[a] = true end
  for a, v in string.gmatch(h.segs or '', '([^\t]+)\t([^\t]*)') do
    if has[a] then segs[#segs + 1] = a .. '\t' .. v end
  end
  it.segs = table.concat(segs, '\t')
  return true
end
