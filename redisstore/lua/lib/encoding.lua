-- encoding: how a board keeps its entries, from the first four arguments
-- (Store's encodingOf): order, the width of the tie-break prefix of its
-- entries (0: entries are bare member ids) and of its extra fields, and its
-- rank style; and what follows from them for single entries. A script that
-- includes it starts its ARGV with these four.
-- uses: base
-- ARGV: 1 desc ('1' when higher is better: read with ZREVRANGE),
--   2 prefix_width, 3 fields_width, 4 rank_style
local a_desc = ARGV[1]
local a_prefix_width = ARGV[2]
local a_fields_width = ARGV[3]
local a_rank_style = ARGV[4]
local DESC = a_desc == '1'
local PW = tonumber(a_prefix_width)
local FW = tonumber(a_fields_width)
local STYLE = a_rank_style

local function entry_id(e)
  if PW == 0 then return e end
  return string.sub(e, PW + 2)
end

local function fields_of(e) return string.sub(e, 1, FW) end

-- A tie group is the score with the extra fields; members in one group are tied.
local function group_of(e, score) return fields_of(e) .. '@' .. fmt(tonumber(score)) end

-- score_better: is score a better than score b in board order?
local function score_better(a, b)
  if DESC then return a > b end
  return a < b
end

-- The entry a member holds in a period, or false.
local function entry_of(z, e_key, id)
  if PW == 0 then
    if redis.call('ZSCORE', z, id) then return id end
    return false
  end
  return redis.call('HGET', e_key, id)
end

-- The tie-group index serves dense ranks only, so only dense boards keep it;
-- UpdateBoard rebuilds it when a board turns dense (see reindex.lua).
local function group_add(d, c, e, score)
  if STYLE ~= 'dense' then return end
  local g = group_of(e, score)
  if redis.call('HINCRBY', c, g, 1) == 1 then redis.call('ZADD', d, score, g) end
end

local function group_del(d, c, e, score)
  if STYLE ~= 'dense' then return end
  local g = group_of(e, score)
  if redis.call('HINCRBY', c, g, -1) <= 0 then
    redis.call('HDEL', c, g)
    redis.call('ZREM', d, g)
  end
end
