-- Submit scores for one or more members to every enabled period, atomically:
-- every item is checked first, and nothing is written unless all pass.
-- Scores are whole numbers of the board's unit (see board/score.go), so every
-- value within ±2^53 is exact and an increment that would round is refused.
-- KEYS: 1 def, 2 names, 3 names:lc, 4 names:idx, 5 recent, 6 periods set,
--       7 batch idempotency key, then per period: zset, entries, distinct, counts,
--       then one idempotency key per item.
-- ARGV (after the prelude's 4): 5 zero fields part, 6 time part, 7 definition
--   version the caller read, 8 max magnitude, 9 cap, 10 batch idempotency key
--   ('' none), 11 idempotency TTL seconds, 12 now (µs), 13 recent-list length,
--   14 number of periods P, 15 number of items N, 16 batch fingerprint, then P
--   period labels, then per item: op, value, fields part ('' keeps the
--   member's), member id, name ('' none), lower-cased name or id, idempotency
--   key ('' none), request fingerprint.
-- Returns {'ok', json} | {'replay', json} | {'nf'} | {'stale'} (the definition
--   changed since the caller read it) | {'reused', item index (0 the batch)} |
--   {'range', item index (1-based), period label, old score}.
-- The json is an array with one {periods = [...]} per item ({replayed = true}
-- for an item whose own key was seen before).
local def = redis.call('HMGET', KEYS[1], 'version', 'format', 'units')
local version = def[1]
if not version then
  if redis.call('EXISTS', KEYS[1]) == 0 then return {'nf'} end
  version = '0'
end
-- A decimal board still holding decimals (before Store.Upgrade) is never
-- written in units: the caller reads the definition again and refuses.
if version ~= ARGV[7] or (def[2] == 'decimal' and def[3] ~= '1') then return {'stale'} end
-- Idempotency keys hold '<fingerprint>\n<result>': a key sent again with a
-- different request is refused rather than answered with another's result.
local function idem_split(stored)
  local fp, rest = string.match(stored, '^([0-9a-f]*)\n(.*)$')
  if not fp then return nil, stored end -- written before fingerprints
  return fp, rest
end
if ARGV[10] ~= '' then
  local prev = redis.call('GET', KEYS[7])
  if prev then
    local fp, res = idem_split(prev)
    if fp and fp ~= ARGV[16] then return {'reused', 0} end
    return {'replay', res}
  end
end

local ZERO, TIME = ARGV[5], ARGV[6]
local MAX, CAP = tonumber(ARGV[8]), tonumber(ARGV[9])
local TTL, NOW, RECENT = tonumber(ARGV[11]), ARGV[12], tonumber(ARGV[13])
local P, N = tonumber(ARGV[14]), tonumber(ARGV[15])
local ITEM0 = 16 + P

local periods = {}
for i = 1, P do
  local base = 7 + (i - 1) * 4
  periods[i] = {z = KEYS[base + 1], e = KEYS[base + 2], d = KEYS[base + 3], c = KEYS[base + 4], label = ARGV[16 + i]}
end

local items = {}
for n = 1, N do
  local a = ITEM0 + (n - 1) * 8
  items[n] = {op = ARGV[a + 1], val = tonumber(ARGV[a + 2]), raw = ARGV[a + 2], fields = ARGV[a + 3], id = ARGV[a + 4],
    name = ARGV[a + 5], lower = ARGV[a + 6], idem = ARGV[a + 7], fp = ARGV[a + 8], idemkey = KEYS[7 + 4 * P + n]}
end

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
-- entry and score there; it returns nil and the old score when the result
-- would leave the range the board keeps exactly.
local function plan(it, old, olds)
  local cur = olds and tonumber(olds)
  local oldf = old and fields_of(old) or ZERO
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
  local p = {old = old, olds = olds, news = fmt(new)}
  p.changed = (not old) or new ~= cur or newf ~= oldf
  if not p.changed then p.new = old
  elseif PW == 0 then p.new = it.id
  else p.new = newf .. TIME .. '|' .. it.id end
  return p
end

-- Check every item first, against the state earlier items would leave.
local seen = {} -- item idempotency keys already used
for n, it in ipairs(items) do
  if it.idem ~= '' then
    local prev = redis.call('GET', it.idemkey)
    if prev then
      local fp, res = idem_split(prev)
      if fp and fp ~= it.fp then return {'reused', n} end
      seen[n] = res
    end
  end
end
local overlay = {} -- period index -> member -> {entry, score string}
for i = 1, P do overlay[i] = {} end
for n, it in ipairs(items) do
  if not seen[n] then
    for i, per in ipairs(periods) do
      local o = overlay[i][it.id]
      local old, olds
      if o then
        old, olds = o[1], o[2]
      else
        old = entry_of(per.z, per.e, it.id)
        olds = old and redis.call('ZSCORE', per.z, old)
        if not olds then old = false end
      end
      local p = plan(it, old, olds)
      if not p then return {'range', n, per.label, olds or '0'} end
      overlay[i][it.id] = {p.new, p.news}
    end
  end
end

-- Everything passed: write, item by item, so each result's ranks are exact.
local function index_name(id, name, lower)
  local oldlower = redis.call('HGET', KEYS[3], id)
  if oldlower then redis.call('ZREM', KEYS[4], oldlower .. '\0' .. id) end
  redis.call('HSET', KEYS[2], id, name)
  redis.call('HSET', KEYS[3], id, lower)
  redis.call('ZADD', KEYS[4], 0, lower .. '\0' .. id)
end

local out = {}
for n, it in ipairs(items) do
  if seen[n] then
    local prev = cjson.decode(seen[n])
    prev.replayed = true
    out[n] = prev
  else
    local results = {}
    for i, per in ipairs(periods) do
      local old = entry_of(per.z, per.e, it.id)
      local olds = old and redis.call('ZSCORE', per.z, old)
      if not olds then old = false end
      local p = plan(it, old, olds)
      local r = {p = per.label, bs = '', br = 0, as = '', ar = 0}
      if p.old then
        r.bs = fmt(tonumber(p.olds))
        r.br = rank_at(per.z, per.d, pos_of(per.z, p.old), p.old, p.olds)
      end
      if p.changed then
        if p.old then
          redis.call('ZREM', per.z, p.old)
          group_del(per.d, per.c, p.old, p.olds)
        end
        redis.call('ZADD', per.z, p.news, p.new)
        if PW > 0 then redis.call('HSET', per.e, it.id, p.new) end
        group_add(per.d, per.c, p.new, p.news)
        redis.call('SADD', KEYS[6], per.z)
        if CAP > 0 then
          local over = redis.call('ZCARD', per.z) - CAP
          if over > 0 then
            local worst = zrange(per.z, CAP, -1)
            for j = 1, #worst, 2 do
              local we, ws = worst[j], worst[j + 1]
              redis.call('ZREM', per.z, we)
              if PW > 0 then redis.call('HDEL', per.e, entry_id(we)) end
              group_del(per.d, per.c, we, ws)
            end
          end
        end
      end
      local pos = pos_of(per.z, p.new)
      if pos then
        r.as = p.news
        r.ar = rank_at(per.z, per.d, pos, p.new, p.news)
      end
      results[i] = r
    end
    -- Display name: set when given, and the id on first sight, so every
    -- member can be found by name.
    if it.name ~= '' then
      if redis.call('HGET', KEYS[2], it.id) ~= it.name then index_name(it.id, it.name, it.lower) end
    elseif redis.call('HEXISTS', KEYS[2], it.id) == 0 then
      index_name(it.id, it.id, it.lower)
    end
    local res = {periods = results}
    redis.call('LPUSH', KEYS[5], cjson.encode({t = NOW, m = it.id, op = it.op, v = it.raw, periods = results}))
    if it.idem ~= '' then redis.call('SET', it.idemkey, it.fp .. '\n' .. cjson.encode(res), 'EX', TTL) end
    out[n] = res
  end
end
redis.call('LTRIM', KEYS[5], 0, RECENT - 1)
local json = cjson.encode(out)
if ARGV[10] ~= '' then redis.call('SET', KEYS[7], ARGV[16] .. '\n' .. json, 'EX', TTL) end
return {'ok', json}
