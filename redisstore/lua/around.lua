-- Read the rows around a member (around-me) of a live period, raw: the
-- member's position, the window's rows with up to back rows before it (so
-- Go finds where the first tie group starts and ranks every row, see
-- lean.go), and the window's display names. No library: the whole script
-- is these few commands, so Redis spends its time in them, not in Lua.
-- KEYS: 1 zset, 2 entries (member id -> tie-break entry), 3 names
-- ARGV: 1 desc ('1': read with ZREVRANGE), 2 prefix_width (0: entries are
--   bare member ids), 3 member, 4 k (rows above and below), 5 back (rows
--   read before the window), 6 count ('1': count the members strictly
--   better than the window's first row instead: a competition rank when
--   ties are by score alone)
-- Returns {'nf'} when the member is not on the board, else {total, start
-- (the window's first position), pos (the member's), from (the first row
-- read), rows (entry, score, ...), names (of the window's rows), better
-- (-1 unless counted)}.
local k_zset = KEYS[1]
local k_entries = KEYS[2]
local k_names = KEYS[3]
local a_desc = ARGV[1]
local a_prefix_width = ARGV[2]
local a_member = ARGV[3]
local a_k = ARGV[4]
local a_back = ARGV[5]
local a_count = ARGV[6]
local desc = a_desc == '1'
local pw, k, back = tonumber(a_prefix_width), tonumber(a_k), tonumber(a_back)
local e = a_member
if pw > 0 then e = redis.call('HGET', k_entries, a_member) end
if not e then return {'nf'} end
local pos
if desc then pos = redis.call('ZREVRANK', k_zset, e) else pos = redis.call('ZRANK', k_zset, e) end
if not pos then return {'nf'} end
local total = redis.call('ZCARD', k_zset)
-- Keep the window full near either end by sliding it.
local start = pos - k
if start + 2 * k > total - 1 then start = total - 1 - 2 * k end
if start < 0 then start = 0 end
local from = math.max(0, start - back)
local rows
if desc then
  rows = redis.call('ZREVRANGE', k_zset, from, start + 2 * k, 'WITHSCORES')
else
  rows = redis.call('ZRANGE', k_zset, from, start + 2 * k, 'WITHSCORES')
end
local ids = {}
for i = 2 * (start - from) + 1, #rows, 2 do ids[#ids + 1] = string.sub(rows[i], pw + 2) end
if pw == 0 then
  for j = 1, #ids do ids[j] = rows[2 * (start - from) + 2 * j - 1] end
end
local names = {}
if #ids > 0 then names = redis.call('HMGET', k_names, unpack(ids)) end
local better = -1
if a_count == '1' and #rows > 0 then
  if desc then better = redis.call('ZCOUNT', k_zset, '(' .. rows[2], '+inf')
  else better = redis.call('ZCOUNT', k_zset, '-inf', '(' .. rows[2]) end
end
return {total, start, pos, from, rows, names, better}
