-- Members of one period whose display name starts with a prefix, from the
-- lexicographic name index: never a scan of the scores.
-- KEYS: 1 zset, 2 entries, 3 distinct, 4 names, 5 name_idx (the name index)
-- ARGV: 1 desc, 2 prefix_width, 3 fields_width, 4 rank_style, 5 prefix
--   (lower-cased), 6 limit, 7 budget (most index entries to examine: members
--   not in this period are skipped)
-- For the public of a frozen board, names and name_idx are its frozen names
-- and their index (frozen_name_keep): the live index is walked beside the frozen one, and
-- its entries of members whose name changed since the freeze are passed
-- over, so names match as they were at the freeze.
-- Returns {examined-all (1|0), then per match: entry, score, rank, pos, name}.
-- uses: ranks
local k_zset = KEYS[1]
local k_entries = KEYS[2]
local k_distinct = KEYS[3]
local k_names = KEYS[4]
local k_name_idx = KEYS[5]
local a_prefix = ARGV[5]
local a_limit = ARGV[6]
local a_budget = ARGV[7]
local z, ek, d = k_zset, k_entries, k_distinct
local prefix, limit, budget = a_prefix, tonumber(a_limit), tonumber(a_budget)
local saved = string.match(k_names, '^(lb:{[^}]*}):frz:names$') and k_names

-- An index walk in lexicographic order, 100 entries a call.
local function walker(index)
  local from, buf, i, done = '[' .. prefix, {}, 1, false
  return function()
    if i > #buf then
      if done then return nil end
      buf = redis.call('ZRANGEBYLEX', index, from, '[' .. prefix .. '\255', 'LIMIT', 0, 100)
      done, i = #buf < 100, 1
      if #buf == 0 then return nil end
      from = '(' .. buf[#buf]
    end
    i = i + 1
    return buf[i - 1]
  end
end

-- Byte order, as Redis sorts the index (Lua's < follows the locale).
local function before(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a < #b
end

-- next_entry is the next index entry in order, and whether it is a live
-- entry of a member whose name changed since the freeze (to pass over).
local next_entry
if not saved then
  local live = walker(k_name_idx)
  next_entry = function() return live(), false end
else
  -- The frozen index and the live one, merged in order.
  local frozen, live = walker(k_name_idx), walker(string.match(k_names, '^(lb:{[^}]*})') .. ':names:idx')
  local f, l = frozen(), live()
  next_entry = function()
    local m
    if f and (not l or before(f, l)) then
      m, f = f, frozen()
      return m, false
    end
    if not l then return nil, false end
    m, l = l, live()
    local id = string.sub(m, string.find(m, '\0', 1, true) + 1)
    return m, redis.call('HEXISTS', saved, id) == 1
  end
end

-- Live entries passed over on a frozen board count apart, toward a cap of
-- their own that never reports the walk incomplete: counted with the
-- others, they would let anyone tell how many names changed since the
-- freeze from when a search comes back incomplete.
local out = {1}
local seen, passed = 0, 0
while #out < 1 + limit * 5 do
  local m, changed = next_entry()
  if not m or passed > budget then return out end
  if not changed and seen >= budget then
    out[1] = 0
    return out
  end
  if changed then passed = passed + 1 else seen = seen + 1 end
  local id = string.sub(m, string.find(m, '\0', 1, true) + 1)
  local e = not changed and entry_of(z, ek, id)
  local s = e and redis.call('ZSCORE', z, e)
  if s then
    local pos = pos_of(z, e)
    out[#out + 1] = e
    out[#out + 1] = s
    out[#out + 1] = rank_at(z, d, pos, e, s)
    out[#out + 1] = pos
    out[#out + 1] = names_get(k_names, {id})[1]
  end
end
return out
