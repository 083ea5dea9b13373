-- Convert a decimal board written before scores were kept in units: every
-- period's scores, its tie-group index and the recent-changes list are
-- multiplied by 10^places (rounded to the unit they were checked to fit),
-- then the definition is marked and its version bumped, in one atomic step.
-- O(N) over the board, once.
-- KEYS: 1 def, 2 periods set, 3 recent, 4 generation counter (see putdef). ARGV (after the prelude's 4):
-- 5 multiplier (10^places). Returns {'done'} | {'nf'} | {'ok', periods}.
-- uses: encoding
if redis.call('EXISTS', KEYS[1]) == 0 then return {'nf'} end
if redis.call('HGET', KEYS[1], 'units') == '1' then return {'done'} end
local M = tonumber(ARGV[5])
local function units(x)
  local v = tonumber(x) * M
  if v >= 0 then return math.floor(v + 0.5) end
  return -math.floor(-v + 0.5)
end
local zs = redis.call('SMEMBERS', KEYS[2])
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
local recent = redis.call('LRANGE', KEYS[3], 0, -1)
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
  redis.call('DEL', KEYS[3])
  redis.call('RPUSH', KEYS[3], unpack(out))
end
local version = redis.call('INCR', KEYS[4])
local stored = tonumber(redis.call('HGET', KEYS[1], 'version') or '0') or 0
if version <= stored then
  version = stored + 1
  redis.call('SET', KEYS[4], version)
end
redis.call('HSET', KEYS[1], 'units', '1', 'version', version)
return {'ok', #zs}
