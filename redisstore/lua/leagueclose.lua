-- Close a league period (redisstore/league_close.go) in steps that the
-- archiver's pass takes under the period's lock, each safe to repeat after
-- a crash: 'save' keeps the results worked out for the period (staged by
-- the caller) as the period's result, once: a second replica's results,
-- worked out later, never replace the first's; 'apply' gives members their
-- tier for the next period and moves those already placed in the next
-- period (a first score there before the close) to a cohort of their new
-- tier, their entries with them; 'done' marks the close applied. The close
-- state of each period is in closed: label -> "c <ms> <end ms>" once saved,
-- "a <ms> <end ms>" once applied, and "last" -> the end (ms) of the latest
-- period applied.
-- KEYS: 1 def, 2 tiers, 3 closed, 4 result, 5 staged, 6 next (the next
--   period's zset)
-- ARGV: 1 desc, 2 prefix_width, 3 fields_width, 4 rank_style, 5 mode,
--   6 label, 7 now_ms, 8 end_ms
-- ARGV per move: 1 member, 2 tier (its tier in the next period)
-- Returns for save 1 (saved) or 0 (a result was saved before), for apply
-- how many members it moved in the next period, for done 1 (0: applied
-- before, by another pass).
-- uses: encoding, segments, leagues
local k_def = KEYS[1]
local k_tiers = KEYS[2]
local k_closed = KEYS[3]
local k_result = KEYS[4]
local k_staged = KEYS[5]
local k_next = KEYS[6]
local a_mode = ARGV[5]
local a_label = ARGV[6]
local a_now_ms = ARGV[7]
local a_end_ms = ARGV[8]
local ARGV_FIXED = 8
local ARGV_PER_MOVE = {'member', 'tier'}

if a_mode == 'save' then
  redis.call('SREM', k_result .. ':staging', k_staged) -- erasures need not look there any more
  if redis.call('HEXISTS', k_closed, a_label) == 1 then
    redis.call('DEL', k_staged)
    return 0
  end
  if redis.call('EXISTS', k_staged) == 1 then
    redis.call('RENAME', k_staged, k_result)
    redis.call('PERSIST', k_result)
  else
    redis.call('DEL', k_result) -- nobody played: an empty result
  end
  redis.call('HSET', k_closed, a_label, 'c ' .. a_now_ms .. ' ' .. a_end_ms)
  return 1
end

if a_mode == 'done' then
  if string.sub(redis.call('HGET', k_closed, a_label) or '', 1, 2) == 'a ' then return 0 end
  redis.call('HSET', k_closed, a_label, 'a ' .. a_now_ms .. ' ' .. a_end_ms)
  if tonumber(a_end_ms) > tonumber(redis.call('HGET', k_closed, 'last') or '0') then
    redis.call('HSET', k_closed, 'last', a_end_ms)
  end
  return 1
end

-- apply
local lg = seg.league(redis.call('HGET', k_def, 'league'))
local tag = tag_of(k_def)

-- apply_move gives member m its tier for the next period (tier) and moves
-- it there to a cohort of that tier if it was placed already; returns
-- whether it moved in the next period.
local function apply_move(m, tier)
  if tier == 0 then redis.call('HDEL', k_tiers, m) else redis.call('HSET', k_tiers, m, tier) end
  local c = lg and redis.call('HGET', k_next .. ':L', m)
  if not c or tonumber(string.match(c, '^(%d+)/')) == math.min(tier, lg.tiers - 1) then return false end
  -- Placed in the next period before the close: out of its cohort there
  -- (which keeps a place free) and into one of its new tier.
  local e = entry_of(k_next, k_next .. ':e', m)
  local s = e and redis.call('ZSCORE', k_next, e)
  if s then seg.place(k_next, 'L:' .. c, e, s, false) end
  if redis.call('HINCRBY', k_next .. ':Ln', c, -1) <= 0 then redis.call('HDEL', k_next .. ':Ln', c) end
  redis.call('HDEL', k_next .. ':L', m)
  local nc = seg.cohort(tag, lg, k_next, m, true)
  if s then seg.place(k_next, 'L:' .. nc, false, false, e, s) end
  seg.changed(tag, k_next)
  return true
end

local moved = 0
for i = 1, (#ARGV - ARGV_FIXED) / #ARGV_PER_MOVE do
  local m = part_at(ARGV, ARGV_FIXED, ARGV_PER_MOVE, i)
  -- A member an erasure took out of the result since the pass read it
  -- (renamed, or gone) is not brought back.
  if redis.call('HEXISTS', k_result, m.member) == 1 and apply_move(m.member, tonumber(m.tier)) then
    moved = moved + 1
  end
end
return moved
