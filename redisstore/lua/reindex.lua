-- Rebuild a period's tie-group index (dense ranks) from its zset, after an
-- outside writer changed scores with ZINCRBY/ZADD. O(N): an admin operation.
-- KEYS: 1 zset, 2 distinct, 3 counts
-- ARGV: 1 desc, 2 prefix_width, 3 fields_width, 4 rank_style
-- Returns the number of tie groups.
-- uses: encoding
local k_zset = KEYS[1]
local k_distinct = KEYS[2]
local k_counts = KEYS[3]
redis.call('DEL', k_distinct, k_counts)
local n, groups, batch = redis.call('ZCARD', k_zset), 0, 1000
for off = 0, n - 1, batch do
  local r = redis.call('ZRANGE', k_zset, off, off + batch - 1, 'WITHSCORES')
  for i = 1, #r, 2 do
    local g = group_of(r[i], r[i + 1])
    if redis.call('HINCRBY', k_counts, g, 1) == 1 then
      redis.call('ZADD', k_distinct, r[i + 1], g)
      groups = groups + 1
    end
  end
end
return groups
