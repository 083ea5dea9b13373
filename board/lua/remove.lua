-- Remove a member from one period, or from every period that holds data.
-- KEYS: 1 def, 2 names, 3 names:lc, 4 names:idx, 5 periods set, then for one
-- period: zset, entries, distinct, counts. With no period keys the script
-- walks the periods set; those keys share the board's hash tag (same slot).
-- ARGV (after the prelude's 4): 5 member id.
-- Returns {'nf'} for an unknown board, else {'ok', zset, score, zset, score...}
-- for every period the member was removed from.
if redis.call('EXISTS', KEYS[1]) == 0 then return {'nf'} end
local id = ARGV[5]
local out = {'ok'}
local function remove(z, ek, d, c)
  local e = entry_of(z, ek, id)
  local s = e and redis.call('ZSCORE', z, e)
  if not s then return end
  redis.call('ZREM', z, e)
  if PW > 0 then redis.call('HDEL', ek, id) end
  group_del(d, c, e, s)
  out[#out + 1] = z
  out[#out + 1] = s
end
if #KEYS > 5 then
  remove(KEYS[6], KEYS[7], KEYS[8], KEYS[9])
else
  for _, z in ipairs(redis.call('SMEMBERS', KEYS[5])) do
    remove(z, z .. ':e', z .. ':d', z .. ':c')
  end
  local lower = redis.call('HGET', KEYS[3], id)
  if lower then redis.call('ZREM', KEYS[4], lower .. '\0' .. id) end
  redis.call('HDEL', KEYS[2], id)
  redis.call('HDEL', KEYS[3], id)
end
return out
