-- Standing of members in periods: score, rank, position and how many rank
-- strictly below, for ranks of friends, a member's every period and percentiles.
-- KEYS: 1 names (a frozen board's public: its frozen names, see names_get),
-- then per period: zset, entries, distinct.
-- ARGV (after the prelude's 4): member ids.
-- Returns per period {total, then per member {score|false, rank, pos, worse, name|false}}.
-- uses: ranks
local out = {}
for i = 2, #KEYS, 3 do
  local z, ek, d = KEYS[i], KEYS[i + 1], KEYS[i + 2]
  local total = redis.call('ZCARD', z)
  local per = {total}
  for a = 5, #ARGV do
    local id = ARGV[a]
    local e = entry_of(z, ek, id)
    local s = e and redis.call('ZSCORE', z, e)
    local name = names_get(KEYS[1], {id})[1]
    if s then
      local pos = pos_of(z, e)
      local worse = total - 1 - group_end(z, pos, e, s)
      per[#per + 1] = {s, rank_at(z, d, pos, e, s), pos, worse, name}
    else
      per[#per + 1] = {false, 0, 0, 0, name}
    end
  end
  out[#out + 1] = per
end
return out
