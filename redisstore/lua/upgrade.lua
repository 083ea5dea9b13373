-- Convert a decimal board written before scores were kept in units: every
-- period's scores, its tie-group index and the recent-changes list are
-- multiplied by 10^places (rounded to the unit they were checked to fit),
-- then the definition is marked and its version bumped, in one atomic step.
-- O(N) over the board, once.
-- KEYS: 1 def, 2 periods, 3 recent, 4 gen (the generation counter, see
--   putdef)
-- ARGV: 1 desc, 2 prefix_width, 3 fields_width, 4 rank_style, 5 multiplier
--   (10^places)
-- Returns {'done'} | {'nf'} | {'ok', periods}.
-- uses: encoding
local k_def = KEYS[1]
local k_periods = KEYS[2]
local k_recent = KEYS[3]
local k_gen = KEYS[4]
local a_multiplier = ARGV[5]
if redis.call('EXISTS', k_def) == 0 then return {'nf'} end
if redis.call('HGET', k_def, 'units') == '1' then return {'done'} end
local M = tonumber(a_multiplier)
local function units(x)
  local v = tonumber(x) * M
  if v >= 0 then return math.floor(v + 0.5) end
  return -math.floor(-v + 0.5)
end
local zs = redis.call('SMEMBERS', k_periods)
for _, z in ipairs(zs) do
  local d, c = z .. ':d', z .. ':c'
  redis.call('DEL', d, c)
  -- Read every entry before writing any: rewritten scores move, so paging
  -- while writing would skip some entries and scale others twice.
  local r = redis.call('ZRANGE', z, 0, -1, 'WITHSCORES')
  for i = 1, #r, 2 do
    local s = fmt(units(r[i + 1]))
    redis.call('ZADD', z, 'XX', s, r[i])
    local g = group_of(r[i], s)
    if redis.call('HINCRBY', c, g, 1) == 1 then redis.call('ZADD', d, s, g) end
  end
end
local recent = redis.call('LRANGE', k_recent, 0, -1)
if #recent > 0 then
  local out = {}
  for _, raw in ipairs(recent) do
    local ok, doc = pcall(cjson.decode, raw)
    if ok and type(doc) == 'table' then
      if doc.v then doc.v = fmt(units(doc.v)) end
      for _, p in ipairs(doc.periods or {}) do
        if p.bs and p.bs ~= '' then p.bs = fmt(units(p.bs)) end
        if p.as and p.as ~= '' then p.as = fmt(units(p.as)) end
      end
      out[#out + 1] = cjson.encode(doc)
    else
      out[#out + 1] = raw
    end
  end
  redis.call('DEL', k_recent)
  redis.call('RPUSH', k_recent, unpack(out))
end
local version = redis.call('INCR', k_gen)
local stored = tonumber(redis.call('HGET', k_def, 'version') or '0') or 0
if version <= stored then
  version = stored + 1
  redis.call('SET', k_gen, version)
end
redis.call('HSET', k_def, 'units', '1', 'version', version)
return {'ok', #zs}
