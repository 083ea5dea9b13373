-- Read a window of one period with ranks in one round trip.
-- KEYS: 1 zset, 2 entries, 3 distinct, 4 names (a frozen board's public: its
--   frozen names, see names_get)
-- ARGV: 1 desc, 2 prefix_width, 3 fields_width, 4 rank_style, 5 mode
-- ARGV for page: 1 offset, 2 limit
-- ARGV for around: 1 member, 2 k (rows above and below)
-- ARGV for range: 1 min, 2 max (inclusive score bounds), 3 offset, 4 limit
-- ARGV for after: 1 score, 2 entry (a mark: the rows after it in read
--   order; entry '' marks a position), 3 position, 4 limit
-- ARGV for arounds: 1 k, 2.. member (every around-me window of one period
--   in one call: the live hub's viewers of one board)
-- Returns {total, first position, matched, rows...}; around returns
-- {'nf'} when the member is not on the board; arounds returns each
-- window's start and position, then the merged windows' rows (see below).
-- uses: ranks
local k_zset = KEYS[1]
local k_entries = KEYS[2]
local k_distinct = KEYS[3]
local k_names = KEYS[4]
local a_mode = ARGV[5]
local ARGV_FIXED = 5
local ARGV_FOR_PAGE = {'offset', 'limit'}
local ARGV_FOR_AROUND = {'member', 'k'}
local ARGV_FOR_RANGE = {'min', 'max', 'offset', 'limit'}
local ARGV_FOR_AFTER = {'score', 'entry', 'position', 'limit'}
local z, d, names = k_zset, k_distinct, k_names
local total = redis.call('ZCARD', z)
local mode = a_mode

if mode == 'page' then
  local a = part_at(ARGV, ARGV_FIXED, ARGV_FOR_PAGE, 1)
  local offset, limit = tonumber(a.offset), tonumber(a.limit)
  local out = {total, offset, total}
  for _, v in ipairs(rows(z, d, names, offset, limit)) do out[#out + 1] = v end
  return out
end

local function around(member, k)
  local e = entry_of(z, k_entries, member)
  local pos = e and pos_of(z, e)
  if not pos then return {'nf'} end
  -- Keep the window full near either end by sliding it.
  local start = pos - k
  if start + 2 * k > total - 1 then start = total - 1 - 2 * k end
  if start < 0 then start = 0 end
  local out = {total, start, pos}
  for _, v in ipairs(rows(z, d, names, start, 2 * k + 1)) do out[#out + 1] = v end
  return out
end

if mode == 'around' then
  local a = part_at(ARGV, ARGV_FIXED, ARGV_FOR_AROUND, 1)
  return around(a.member, tonumber(a.k))
end

if mode == 'arounds' then
  -- Every window's start and its member's position (-1: not on the board),
  -- then the rows of the windows merged into ranges, each read once:
  -- {total, n, start1, pos1, ..., startn, posn, {range start, rows...}...}.
  local k = tonumber(ARGV[ARGV_FIXED + 1])
  local out, starts = {total, #ARGV - ARGV_FIXED - 1}, {}
  for i = ARGV_FIXED + 2, #ARGV do
    local e = entry_of(z, k_entries, ARGV[i])
    local pos = e and pos_of(z, e)
    local start = -1
    if pos then
      start = pos - k
      if start + 2 * k > total - 1 then start = total - 1 - 2 * k end
      if start < 0 then start = 0 end
      starts[#starts + 1] = start
    else
      pos = -1
    end
    out[#out + 1] = start
    out[#out + 1] = pos
  end
  table.sort(starts)
  local from, to
  local function flush()
    local r = {from}
    for _, v in ipairs(rows(z, d, names, from, to - from + 1)) do r[#r + 1] = v end
    out[#out + 1] = r
  end
  for _, s in ipairs(starts) do
    if from and s <= to + 1 then
      to = math.max(to, s + 2 * k)
    else
      if from then flush() end
      from, to = s, s + 2 * k
    end
  end
  if from then flush() end
  return out
end

if mode == 'range' then
  local a = part_at(ARGV, ARGV_FIXED, ARGV_FOR_RANGE, 1)
  local lo, hi = a.min, a.max
  local offset, limit = tonumber(a.offset), tonumber(a.limit)
  local first
  if DESC then first = redis.call('ZCOUNT', z, '(' .. hi, '+inf')
  else first = redis.call('ZCOUNT', z, '-inf', '(' .. lo) end
  local matched = redis.call('ZCOUNT', z, lo, hi)
  local n = matched - offset
  if n > limit then n = limit end
  local out = {total, first + offset, matched}
  for _, v in ipairs(rows(z, d, names, first + offset, n)) do out[#out + 1] = v end
  return out
end
-- Byte order of strings a and b (-1, 0, 1): Redis' order of equal scores.
-- Never Lua's '<', which follows the server's locale (strcoll).
local function bytes_cmp(a, b)
  if a == b then return 0 end
  local n, i = math.min(#a, #b), 1
  while i <= n and string.byte(a, i) == string.byte(b, i) do i = i + 1 end
  if i > n then
    if #a < #b then return -1 end
    return 1
  end
  if string.byte(a, i) < string.byte(b, i) then return -1 end
  return 1
end

-- The first position after the mark (score, entry) in read order: after the
-- rows of better scores, and after those of the mark's score whose entries
-- come at or before its entry (one score's rows lie in entry order:
-- ascending bytes, descending when DESC). The marked entry may have moved
-- or left since: a binary search over its score's positions places the
-- mark among the rows there now, O(log(run) * log(N)).
local function start_after(score, e)
  local s = redis.call('ZSCORE', z, e)
  if s and tonumber(s) == tonumber(score) then return pos_of(z, e) + 1 end
  local lo, hi = count_better(z, score), count_better_or_equal(z, score)
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    local c = bytes_cmp(zrange(z, mid, mid)[1], e)
    if DESC then c = -c end
    if c <= 0 then lo = mid + 1 else hi = mid end
  end
  return lo
end

if mode == 'after' then
  local a = part_at(ARGV, ARGV_FIXED, ARGV_FOR_AFTER, 1)
  local start = tonumber(a.position) + 1
  if a.entry ~= '' then start = start_after(a.score, a.entry) end
  local out = {total, start, total}
  for _, v in ipairs(rows(z, d, names, start, tonumber(a.limit))) do out[#out + 1] = v end
  return out
end
return redis.error_reply('view: unknown mode ' .. tostring(mode))
