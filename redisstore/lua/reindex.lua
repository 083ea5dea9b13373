-- Rebuild a period's tie-group index (dense ranks) from its zset, after an
-- outside writer changed scores with ZINCRBY/ZADD. O(N): an admin operation.
-- KEYS: 1 zset, 2 distinct, 3 counts. Returns the number of tie groups.
-- uses: encoding
redis.call('DEL', KEYS[2], KEYS[3])
local n, groups, batch = redis.call('ZCARD', KEYS[1]), 0, 1000
for off = 0, n - 1, batch do
  local r = redis.call('ZRANGE', KEYS[1], off, off + batch - 1, 'WITHSCORES')
  for i = 1, #r, 2 do
    local g = group_of(r[i], r[i + 1])
    if redis.call('HINCRBY', KEYS[3], g, 1) == 1 then
      redis.call('ZADD', KEYS[2], r[i + 1], g)
      groups = groups + 1
    end
  end
end
return groups
