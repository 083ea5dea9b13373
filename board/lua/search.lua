-- Members of one period whose display name starts with a prefix, from the
-- lexicographic name index: never a scan of the scores.
-- KEYS: 1 zset, 2 entries, 3 distinct, 4 names, 5 name index.
-- ARGV (after the prelude's 4): 5 lower-cased prefix, 6 limit, 7 most index
-- entries to examine (members not in this period are skipped).
-- Returns {examined-all (1|0), then per match: entry, score, rank, pos, name}.
local z, ek, d = KEYS[1], KEYS[2], KEYS[3]
local prefix, limit, budget = ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7])
local out = {1}
local from = '[' .. prefix
local seen = 0
while #out < 1 + limit * 5 and seen < budget do
  local batch = redis.call('ZRANGEBYLEX', KEYS[5], from, '[' .. prefix .. '\255', 'LIMIT', 0, 100)
  if #batch == 0 then return out end
  for _, m in ipairs(batch) do
    seen = seen + 1
    local id = string.sub(m, string.find(m, '\0', 1, true) + 1)
    local e = entry_of(z, ek, id)
    local s = e and redis.call('ZSCORE', z, e)
    if s then
      local pos = pos_of(z, e)
      out[#out + 1] = e
      out[#out + 1] = s
      out[#out + 1] = rank_at(z, d, pos, e, s)
      out[#out + 1] = pos
      out[#out + 1] = redis.call('HGET', KEYS[4], id)
      if #out >= 1 + limit * 5 then return out end
    end
    from = '(' .. m
  end
  if #batch < 100 then return out end
end
out[1] = 0
return out
