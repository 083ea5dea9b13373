-- Read a window of one period with ranks in one round trip.
-- KEYS: 1 zset, 2 entries, 3 distinct, 4 names (a frozen board's public: its
-- frozen names, see names_get).
-- ARGV (after the prelude's 4): 5 mode, then
--   page:   6 offset, 7 limit
--   around: 6 member id, 7 k (rows above and below)
--   range:  6 min, 7 max (inclusive score bounds), 8 offset, 9 limit
--   arounds: 6 k, 7... member ids: every around-me window of one period
--            in one call (the live hub's viewers of one board)
-- Returns {total, first position, matched, rows...}; around returns
-- {'nf'} when the member is not on the board; arounds returns each
-- window's start and position, then the merged windows' rows (see below).
-- uses: ranks
local z, d, names = KEYS[1], KEYS[3], KEYS[4]
local total = redis.call('ZCARD', z)
local mode = ARGV[5]

if mode == 'page' then
  local offset, limit = tonumber(ARGV[6]), tonumber(ARGV[7])
  local out = {total, offset, total}
  for _, v in ipairs(rows(z, d, names, offset, limit)) do out[#out + 1] = v end
  return out
end

local function around(member, k)
  local e = entry_of(z, KEYS[2], member)
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

if mode == 'around' then return around(ARGV[6], tonumber(ARGV[7])) end

if mode == 'arounds' then
  -- Every window's start and its member's position (-1: not on the board),
  -- then the rows of the windows merged into ranges, each read once:
  -- {total, n, start1, pos1, ..., startn, posn, {range start, rows...}...}.
  local k = tonumber(ARGV[6])
  local out, starts = {total, #ARGV - 6}, {}
  for i = 7, #ARGV do
    local e = entry_of(z, KEYS[2], ARGV[i])
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
  local lo, hi = ARGV[6], ARGV[7]
  local offset, limit = tonumber(ARGV[8]), tonumber(ARGV[9])
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
return redis.error_reply('view: unknown mode ' .. tostring(mode))
