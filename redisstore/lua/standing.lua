-- Standing of members in periods: score, rank, position and how many rank
-- strictly below, for ranks of friends, a member's every period and percentiles.
-- KEYS: 1 names (a frozen board's public: its frozen names, see names_get)
-- KEYS per period: 1 zset, 2 entries, 3 distinct
-- ARGV: 1 desc, 2 prefix_width, 3 fields_width, 4 rank_style, 5.. member
-- Returns per period {total, then per member {score|false, rank, pos, worse, name|false}}.
-- uses: ranks
local k_names = KEYS[1]
local KEYS_FIXED = 1
local KEYS_PER_PERIOD = {'zset', 'entries', 'distinct'}
local ARGV_FIXED = 4
local out = {}
for i = 1, (#KEYS - KEYS_FIXED) / #KEYS_PER_PERIOD do
  local pk = part_at(KEYS, KEYS_FIXED, KEYS_PER_PERIOD, i)
  local z, ek, d = pk.zset, pk.entries, pk.distinct
  local total = redis.call('ZCARD', z)
  local per = {total}
  for a = ARGV_FIXED + 1, #ARGV do
    local id = ARGV[a]
    local e = entry_of(z, ek, id)
    local s = e and redis.call('ZSCORE', z, e)
    local name = names_get(k_names, {id})[1]
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
