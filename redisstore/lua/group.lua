-- Read a group standing (a segment's, redisstore/segment.go): a page of it
-- with each row's rank in the group and on the whole period, or members'
-- standings in it. The group holds the period's own entries, so its ranks
-- follow the board's ties, tie-break and rank style.
-- KEYS: 1 group (its zset), 2 group_distinct (its tie groups), 3 zset (the
--   period's), 4 entries, 5 distinct, 6 names
-- ARGV: 1 desc, 2 prefix_width, 3 fields_width, 4 rank_style, 5 mode
-- ARGV for page: 1 offset, 2 limit
-- ARGV for ranks: 1.. member
-- page returns {group total, period total, offset, rows: entry, score,
-- rank, name, global rank, global position...}; ranks returns {group total, per member
-- {score, rank, position, worse} or false}.
-- uses: ranks
local k_group = KEYS[1]
local k_group_distinct = KEYS[2]
local k_zset = KEYS[3]
local k_entries = KEYS[4]
local k_distinct = KEYS[5]
local k_names = KEYS[6]
local a_mode = ARGV[5]
local ARGV_FIXED = 5
local ARGV_FOR_PAGE = {'offset', 'limit'}
local g, gd, z = k_group, k_group_distinct, k_zset
local total = redis.call('ZCARD', g)

if a_mode == 'page' then
  local a = part_at(ARGV, ARGV_FIXED, ARGV_FOR_PAGE, 1)
  local offset = tonumber(a.offset)
  local out = {total, redis.call('ZCARD', z), offset}
  local r = rows(g, gd, k_names, offset, tonumber(a.limit))
  for i = 1, #r, 4 do
    out[#out + 1], out[#out + 2], out[#out + 3], out[#out + 4] = r[i], r[i + 1], r[i + 2], r[i + 3]
    local pos = pos_of(z, r[i]) -- nil: not in the period (never, while the scripts keep both)
    out[#out + 1] = pos and rank_at(z, k_distinct, pos, r[i], r[i + 1]) or 0
    out[#out + 1] = pos or -1
  end
  return out
end

if a_mode == 'ranks' then
  local out = {total}
  for i = ARGV_FIXED + 1, #ARGV do
    local e = entry_of(z, k_entries, ARGV[i])
    local s = e and redis.call('ZSCORE', g, e)
    if s then
      local pos = pos_of(g, e)
      out[#out + 1] = {s, rank_at(g, gd, pos, e, s), pos, total - 1 - group_end(g, pos, e, s)}
    else
      out[#out + 1] = false
    end
  end
  return out
end
return redis.error_reply('group: unknown mode ' .. tostring(a_mode))
