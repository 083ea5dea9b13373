-- Submit one score for one member to every enabled period, atomically.
-- KEYS: 1 def, 2 names, 3 names:lc, 4 names:idx, 5 recent, 6 periods set,
--       7 idempotency key, then per period: zset, entries, distinct, counts.
-- ARGV (after the prelude's 4): 5 op, 6 value, 7 fields part ('' keeps the
--   member's), 8 zero fields part, 9 time part, 10 member id, 11 name ('' none),
--   12 lower-cased name or id, 13 decimals (-1: none), 14 max magnitude, 15 cap,
--   16 idempotency key ('' none), 17 idempotency TTL seconds, 18 now (µs),
--   19 recent-list length, 20.. one label per period.
-- Returns {'ok', json} | {'replay', json} | {'nf'} | {'range', label, old score}.
if redis.call('EXISTS', KEYS[1]) == 0 then return {'nf'} end
if ARGV[16] ~= '' then
  local prev = redis.call('GET', KEYS[7])
  if prev then return {'replay', prev} end
end

local OP, VAL, FIELDS, ZERO, TIME = ARGV[5], tonumber(ARGV[6]), ARGV[7], ARGV[8], ARGV[9]
local ID, NAME, LOWER = ARGV[10], ARGV[11], ARGV[12]
local DEC, MAX, CAP = tonumber(ARGV[13]), tonumber(ARGV[14]), tonumber(ARGV[15])
local np = (#KEYS - 7) / 4

-- Is (s1, f1) better than (s2, f2) in board order?
local function better(s1, f1, s2, f2)
  if s1 ~= s2 then
    if DESC then return s1 > s2 end
    return s1 < s2
  end
  if DESC then return f1 > f2 end
  return f1 < f2
end

-- Plan every period first and write nothing until all of them are in range.
local plans = {}
for i = 1, np do
  local base = 7 + (i - 1) * 4
  local p = {z = KEYS[base + 1], e = KEYS[base + 2], d = KEYS[base + 3], c = KEYS[base + 4], label = ARGV[19 + i]}
  local old = entry_of(p.z, p.e, ID)
  local olds = old and redis.call('ZSCORE', p.z, old)
  if not olds then old = false end
  p.old, p.olds = old, olds
  local cur = olds and tonumber(olds)
  local oldf = old and fields_of(old) or ZERO
  local newf = oldf
  if FIELDS ~= '' then newf = FIELDS end
  local new
  if OP == 'incr' then new = (cur or 0) + VAL
  elseif OP == 'decr' then new = (cur or 0) - VAL
  else new = VAL end
  -- Whole numbers must stay exact: past 2^53 an addition rounds, which shows
  -- as a result whose difference from the old score is not the value added.
  local inexact = DEC < 0 and cur and OP ~= 'set' and OP ~= 'best' and math.abs(new - cur) ~= VAL
  if DEC >= 0 then new = tonumber(string.format('%.' .. DEC .. 'f', new)) end
  new = new + 0
  if inexact or new ~= new or new > MAX or new < -MAX then
    return {'range', p.label, olds or '0'}
  end
  if OP == 'best' and cur and not better(new, newf, cur, oldf) then
    new, newf = cur, oldf
  end
  p.changed = (not old) or new ~= cur or newf ~= oldf
  if p.changed then
    if PW == 0 then p.new = ID else p.new = newf .. TIME .. '|' .. ID end
  else
    p.new = old
  end
  p.news = fmt(new)
  plans[i] = p
end

local results = {}
for i = 1, np do
  local p = plans[i]
  local r = {p = p.label, bs = '', br = 0, as = '', ar = 0}
  if p.old then
    r.bs = fmt(tonumber(p.olds))
    r.br = rank_at(p.z, p.d, pos_of(p.z, p.old), p.old, p.olds)
  end
  if p.changed then
    if p.old then
      redis.call('ZREM', p.z, p.old)
      group_del(p.d, p.c, p.old, p.olds)
    end
    redis.call('ZADD', p.z, p.news, p.new)
    if PW > 0 then redis.call('HSET', p.e, ID, p.new) end
    group_add(p.d, p.c, p.new, p.news)
    redis.call('SADD', KEYS[6], p.z)
    if CAP > 0 then
      local over = redis.call('ZCARD', p.z) - CAP
      if over > 0 then
        local worst = zrange(p.z, CAP, -1)
        for j = 1, #worst, 2 do
          local we, ws = worst[j], worst[j + 1]
          redis.call('ZREM', p.z, we)
          if PW > 0 then redis.call('HDEL', p.e, entry_id(we)) end
          group_del(p.d, p.c, we, ws)
        end
      end
    end
  end
  local pos = pos_of(p.z, p.new)
  if pos then
    r.as = p.news
    r.ar = rank_at(p.z, p.d, pos, p.new, p.news)
  end
  results[i] = r
end

-- Display name: set when given, and default to the id on first sight, so
-- every member can be found by name.
local function index_name(name, lower)
  local oldlower = redis.call('HGET', KEYS[3], ID)
  if oldlower then redis.call('ZREM', KEYS[4], oldlower .. '\0' .. ID) end
  redis.call('HSET', KEYS[2], ID, name)
  redis.call('HSET', KEYS[3], ID, lower)
  redis.call('ZADD', KEYS[4], 0, lower .. '\0' .. ID)
end
if NAME ~= '' then
  if redis.call('HGET', KEYS[2], ID) ~= NAME then index_name(NAME, LOWER) end
elseif redis.call('HEXISTS', KEYS[2], ID) == 0 then
  index_name(ID, LOWER)
end

local json = cjson.encode({periods = results})
redis.call('LPUSH', KEYS[5], cjson.encode({t = ARGV[18], m = ID, op = OP, v = ARGV[6], periods = results}))
redis.call('LTRIM', KEYS[5], 0, tonumber(ARGV[19]) - 1)
if ARGV[16] ~= '' then redis.call('SET', KEYS[7], json, 'EX', tonumber(ARGV[17])) end
return {'ok', json}
