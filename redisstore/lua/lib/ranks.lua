-- ranks: reads of a period in board order with ranks in the board's style
-- (competition, dense, ordinal), tied ranks at no scan, and display names.
-- Positions are 0-based in read order (best first).
-- uses: encoding

local function zrange(z, a, b)
  if DESC then return redis.call('ZREVRANGE', z, a, b, 'WITHSCORES') end
  return redis.call('ZRANGE', z, a, b, 'WITHSCORES')
end

local function pos_of(z, e)
  local r
  if DESC then r = redis.call('ZREVRANK', z, e) else r = redis.call('ZRANK', z, e) end
  if r == false then return nil end
  return r
end

-- Members whose score is strictly better than score (a Redis score string).
local function count_better(z, score)
  if DESC then return redis.call('ZCOUNT', z, '(' .. score, '+inf') end
  return redis.call('ZCOUNT', z, '-inf', '(' .. score)
end

local function count_better_or_equal(z, score)
  if DESC then return redis.call('ZCOUNT', z, score, '+inf') end
  return redis.call('ZCOUNT', z, '-inf', score)
end

-- First position of the tie group of entry e at pos. Equal scores sit together
-- ordered by entry bytes, whose leading part is the extra fields, so the group
-- is a contiguous run ending at or after pos: a binary search by position
-- finds its start in O(log(run) * log(N)).
local function group_start(z, pos, e, score)
  local lo = count_better(z, score)
  if FW == 0 then return lo end
  local f = fields_of(e)
  local hi = pos
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if fields_of(zrange(z, mid, mid)[1]) == f then hi = mid else lo = mid + 1 end
  end
  return lo
end

local function group_end(z, pos, e, score)
  local hi = count_better_or_equal(z, score) - 1
  if FW == 0 then return hi end
  local f = fields_of(e)
  local lo = pos
  while lo < hi do
    local mid = math.floor((lo + hi + 1) / 2)
    if fields_of(zrange(z, mid, mid)[1]) == f then lo = mid else hi = mid - 1 end
  end
  return lo
end

-- Dense rank from the zset of tie groups; 0 when the group is missing, which
-- happens only when someone else wrote the zset (see Store.Reindex).
local function dense_rank(d, e, score)
  local g = group_of(e, score)
  local r
  if DESC then r = redis.call('ZREVRANK', d, g) else r = redis.call('ZRANK', d, g) end
  if r == false then return 0 end
  return r + 1
end

-- Rank of entry e (score string, position pos, or nil when the caller has
-- not read it: only the styles that need it read it) in the board's style.
local function rank_at(z, d, pos, e, score)
  if STYLE == 'ordinal' then return (pos or pos_of(z, e)) + 1 end
  if STYLE == 'dense' then return dense_rank(d, e, score) end
  if FW == 0 then return count_better(z, score) + 1 end
  return group_start(z, pos or pos_of(z, e), e, score) + 1
end

-- The display names of ids (false: none) in names: a board's names hash,
-- or, for the public of a frozen board, its frozen names (a key ending in
-- ':frz:names', see frozen_name_keep): the name a member had at the freeze
-- when it changed since ('' none), else its name in the live hash.
local function names_get(names, ids)
  local tag = string.match(names, '^(lb:{[^}]*}):frz:names$')
  if not tag then return redis.call('HMGET', names, unpack(ids)) end
  local out = redis.call('HMGET', names, unpack(ids))
  local rest, at = {}, {}
  for j = 1, #ids do
    if out[j] == '' then
      out[j] = false
    elseif not out[j] then
      rest[#rest + 1], at[#at + 1] = ids[j], j
    end
  end
  if #rest > 0 then
    local live = redis.call('HMGET', tag .. ':names', unpack(rest))
    for k = 1, #rest do out[at[k]] = live[k] end
  end
  return out
end

-- Rows from position offset: a flat list of entry, score, rank, name (false
-- when unnamed). Only the first row's rank costs a lookup; later rows follow
-- from whether they share the previous row's tie group.
local function rows(z, d, names, offset, limit)
  local out = {}
  if limit <= 0 then return out end
  local r = zrange(z, offset, offset + limit - 1)
  local ids = {}
  local prev, rank
  for i = 1, #r, 2 do
    local e, s = r[i], r[i + 1]
    local pos = offset + (i - 1) / 2
    local g = group_of(e, s)
    if i == 1 then
      rank = rank_at(z, d, pos, e, s)
    elseif STYLE == 'ordinal' then
      rank = pos + 1
    elseif g ~= prev then
      if STYLE == 'dense' then
        if rank > 0 then rank = rank + 1 end
      else
        rank = pos + 1
      end
    end
    prev = g
    out[#out + 1] = e
    out[#out + 1] = s
    out[#out + 1] = rank
    out[#out + 1] = false
    ids[#ids + 1] = entry_id(e)
  end
  if #ids > 0 then
    local ns = names_get(names, ids)
    for j = 1, #ids do out[4 * j] = ns[j] end
  end
  return out
end
