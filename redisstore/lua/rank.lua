-- Standing of members in periods, for boards whose ties are by score alone
-- (no extra fields) and ranks not dense: the few commands each needs and
-- nothing else (standing.lua, with its library, serves the others).
-- KEYS: 1 names (the board's display names)
-- KEYS per period: 1 zset, 2 entries
-- ARGV: 1 desc ('1': read with ZREVRANGE), 2 prefix_width (0: entries
--   are bare member ids), 3.. member
-- Returns per period {total, then per member {score|false, better, pos,
-- worse, name|false}}: better counts the members strictly better, worse
-- those strictly worse.
local k_names = KEYS[1]
local KEYS_FIXED = 1
local KEYS_PER_PERIOD = {'zset', 'entries'}
local a_desc = ARGV[1]
local a_prefix_width = ARGV[2]
local ARGV_FIXED = 2
local desc = a_desc == '1'
local pw = tonumber(a_prefix_width)
local ids = {}
for a = ARGV_FIXED + 1, #ARGV do ids[#ids + 1] = ARGV[a] end
local names = redis.call('HMGET', k_names, unpack(ids))
local out = {}
for i = 1, (#KEYS - KEYS_FIXED) / #KEYS_PER_PERIOD do
  local z, ek = KEYS[KEYS_FIXED + 2 * i - 1], KEYS[KEYS_FIXED + 2 * i]
  local total = redis.call('ZCARD', z)
  local per = {total}
  for j, id in ipairs(ids) do
    local e = id
    if pw > 0 then e = redis.call('HGET', ek, id) end
    local s = e and redis.call('ZSCORE', z, e)
    if s then
      local pos, better, worse
      if desc then
        pos = redis.call('ZREVRANK', z, e)
        better = redis.call('ZCOUNT', z, '(' .. s, '+inf')
        worse = redis.call('ZCOUNT', z, '-inf', '(' .. s)
      else
        pos = redis.call('ZRANK', z, e)
        better = redis.call('ZCOUNT', z, '-inf', '(' .. s)
        worse = redis.call('ZCOUNT', z, '(' .. s, '+inf')
      end
      per[#per + 1] = {s, better, pos, worse, names[j]}
    else
      per[#per + 1] = {false, 0, 0, 0, names[j]}
    end
  end
  out[#out + 1] = per
end
return out
