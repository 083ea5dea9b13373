-- Take the buckets that have left a rolling window out of it (redisstore/window.go),
-- one chunk of a bucket's members per call, each call atomic.
-- KEYS: 1 def, 2 zset (the window's), 3 entries, 4 distinct, 5 counts,
--   6 state (the board's window state hash), 7 buckets (the window's set of
--   bucket ids), 8 freeze (the marker)
-- ARGV: 1 desc, 2 prefix_width, 3 fields_width, 4 rank_style, 5 kind (the
--   window's: 'last7d'), 6 mode ('sum' or 'best'), 7 floor (the oldest
--   bucket id inside the window now), 8 chunk (size), 9 version (the
--   definition version the caller read)
-- The state hash keeps, per window, field <kind>: the window's floor (the
-- oldest bucket it holds; writes to older buckets are left out of it, see
-- submit.lua). The floor only rises: a replica whose clock is behind cannot
-- bring a bucket back. Each call takes the members it handles out of the
-- leaving bucket, so a removal in between (which takes a member out of
-- every bucket) cannot make it skip one.
-- Returns 'idle' (no bucket has left), 'more' (call again), 'done', or
-- 'stale' (the definition changed: read it again).
-- uses: teams, segments, freeze
local k_def = KEYS[1]
local k_zset = KEYS[2]
local k_entries = KEYS[3]
local k_distinct = KEYS[4]
local k_counts = KEYS[5]
local k_state = KEYS[6]
local k_buckets = KEYS[7]
local k_freeze = KEYS[8]
local a_kind = ARGV[5]
local a_mode = ARGV[6]
local a_floor = ARGV[7]
local a_chunk = ARGV[8]
local a_version = ARGV[9]
local def = redis.call('HMGET', k_def, 'version', 'teams', 'freeze_at', 'segments')
if not def[1] and redis.call('EXISTS', k_def) == 0 then return 'idle' end
if (def[1] or '0') ~= a_version then return 'stale' end
local TEAMS = def[2] or ''
local TAG = tag_of(k_def)
local K, MODE, FLOOR, CH = a_kind, a_mode, a_floor, tonumber(a_chunk)
local z, ek, d, c, state, bs = k_zset, k_entries, k_distinct, k_counts, k_state, k_buckets
local floor = redis.call('HGET', state, K)
if floor and floor >= FLOOR then FLOOR = floor else redis.call('HSET', state, K, FLOOR) end

local ids = redis.call('SMEMBERS', bs)
table.sort(ids)
if #ids == 0 or ids[1] >= FLOOR then return 'idle' end
local b = ids[1]
local bk = z .. ':b:' .. b
freeze_due(def[3], k_freeze) -- a scheduled freeze is taken before the window moves
local chunk = redis.call('ZRANGE', bk, 0, CH - 1, 'WITHSCORES')
local mids, vals = {}, {}
for j = 1, #chunk, 2 do
  mids[#mids + 1] = chunk[j]
  vals[#vals + 1] = tonumber(chunk[j + 1])
end
if #mids > 0 then
  -- What the other buckets hold of these members: whether any does (a member
  -- none holds leaves the window), and the best offer (best mode). Buckets
  -- that have left too still count until their own turn.
  local present, best = {}, {}
  for _, x in ipairs(ids) do
    if x ~= b then
      local sc = redis.call('ZMSCORE', z .. ':b:' .. x, unpack(mids))
      for j = 1, #mids do
        local v = sc[j] and tonumber(sc[j])
        if v then
          present[j] = true
          if best[j] == nil or (DESC and v > best[j]) or (not DESC and v < best[j]) then best[j] = v end
        end
      end
    end
  end
  local entries = mids
  if PW > 0 then entries = redis.call('HMGET', ek, unpack(mids)) end
  local q, qj = {}, {}
  for j = 1, #mids do
    if entries[j] then
      q[#q + 1] = entries[j]
      qj[#qj + 1] = j
    end
  end
  local teams = {}
  if TEAMS ~= '' then teams = redis.call('HMGET', TAG .. ':team', unpack(mids)) end
  local attrs = seg.attrs(def[4])
  local segvals = seg.values(TAG, attrs, mids)
  if #q > 0 then
    local sc = redis.call('ZMSCORE', z, unpack(q))
    for k = 1, #q do
      local cur = sc[k] and tonumber(sc[k])
      if cur then -- not on the window: removed, or trimmed by a size cap
        local j, e = qj[k], q[k]
        local new
        if present[j] then
          if MODE == 'best' then new = best[j] else new = cur - vals[j] end
        end
        if new == nil then
          group_del(d, c, e, cur)
          redis.call('ZREM', z, e)
          if PW > 0 then redis.call('HDEL', ek, mids[j]) end
        elseif new ~= cur then
          group_del(d, c, e, cur)
          redis.call('ZADD', z, fmt(new), e)
          group_add(d, c, e, fmt(new))
        end
        if new ~= cur then
          teamlib.apply(TEAMS, z, TAG, teams[j], cur, new)
          local mine = {}
          for i = 1, #attrs do mine[i] = segvals[i][j] end
          local news = new and fmt(new)
          seg.move(attrs, mine, z, e, sc[k], news and e, news)
        end
      end
    end
  end
end
if #mids > 0 then redis.call('ZREM', bk, unpack(mids)) end
if #mids < CH then
  redis.call('DEL', bk)
  redis.call('SREM', bs, b)
  if #ids > 1 and ids[2] < FLOOR then return 'more' end
  return 'done'
end
return 'more'
