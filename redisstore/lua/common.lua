-- Prelude shared by every script (prepended at load time).
-- ARGV[1] '1' when higher is better (read with ZREVRANGE), ARGV[2] prefix width
-- (0: entries are bare member ids), ARGV[3] extra-fields width, ARGV[4] rank style.
-- Positions are 0-based in read order (best first).
local DESC = ARGV[1] == '1'
local PW = tonumber(ARGV[2])
local FW = tonumber(ARGV[3])
local STYLE = ARGV[4]

local function fmt(x) return string.format('%.17g', x) end

local function entry_id(e)
  if PW == 0 then return e end
  return string.sub(e, PW + 2)
end

local function fields_of(e) return string.sub(e, 1, FW) end

-- A tie group is the score with the extra fields; members in one group are tied.
local function group_of(e, score) return fields_of(e) .. '@' .. fmt(tonumber(score)) end

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

-- The entry a member holds in a period, or false.
local function entry_of(z, e_key, id)
  if PW == 0 then
    if redis.call('ZSCORE', z, id) then return id end
    return false
  end
  return redis.call('HGET', e_key, id)
end

-- Audit: append one entry (a flat field/value list holding rows rows) to the
-- board's audit stream and to its actor's, and note the actor; keys: stream,
-- actor stream, actors set. Written by the script that makes the change, in
-- its slot. Each stream keeps its newest keep rows: a batch is one entry of
-- many rows, so the count of rows, not entries, bounds its memory. The rows
-- each stream holds are counted in one hash per board (<board>:audit:rows,
-- field: the stream's key), and each entry says its own count (field n).
--
-- Once an archiver runs (package archive), it copies the board's stream to
-- SQL and keeps in that hash, field 'archived', the id of the newest entry
-- the archive holds (the mark). From then on an entry beyond keep rows goes
-- only once it is archived, so the log pages on from Redis into SQL with
-- nothing missing; past twice keep the oldest go anyway, so Redis memory
-- stays bounded while the archiver is down, and the rows the board's stream
-- dropped before they were copied are counted in field 'unarchived' for the
-- archiver to report. Boards without a mark (no archiver: tests, Redis-only
-- use) keep keep rows, as before.

-- The two numbers of an entry id '<ms>-<seq>' (doubles: exact for any
-- millisecond and sequence Redis makes).
local function audit_id(id)
  local ms, seq = string.match(id, '^(%d+)%-(%d+)$')
  return tonumber(ms), tonumber(seq)
end

-- Whether the archive holds an entry: a board stream's entry by its id; an
-- actor stream's by its millisecond only (by_time), since its entries
-- written before actor streams shared the board's ids (audit_add) have ids
-- of their own, made in the same script call, so in the same millisecond.
local function audit_archived(id, mark, by_time)
  local ms, seq = audit_id(id)
  if ms == nil or mark == nil then return false end
  if ms ~= mark[1] then return ms < mark[1] end
  return not by_time and seq <= mark[2]
end

-- The XRANGE end that stops at the last entry the archive holds, by the
-- same rule, or nil when it holds none: reading the oldest entry only to
-- find it is not archived would cost a whole batch entry on every write.
local function audit_archived_end(mark, by_time)
  if not by_time then return mark[3] end
  if mark[1] == 0 then return nil end
  return '(' .. string.format('%.0f', mark[1]) .. '-0'
end

-- Trim one stream after an entry of rows rows was appended; counts is the
-- board's row counts hash, mark the archive's mark ({ms, seq, id}) or nil, and
-- board whether this is the board's stream (what the archive copies).
local function audit_trim(counts, stream, rows, keep, mark, board)
  local total = redis.call('HINCRBY', counts, stream, rows)
  if total <= keep then return end
  local hard = keep
  if mark then hard = 2 * keep end
  -- Drop the oldest entries until the rest fit: in steady state one entry
  -- goes for each that comes, so read one, then more (an entry may hold a
  -- thousand rows, and all of it is read). An entry the archive lacks
  -- stops the trim until the stream passes the hard bound.
  local count, lost, changed, blocked = 1, 0, false, false
  while total > keep and not blocked do
    local last = '+'
    if total <= hard then last = audit_archived_end(mark, not board) end
    if last == nil then break end
    local old = redis.call('XRANGE', stream, '-', last, 'COUNT', count)
    count = math.min(count * 2, 64)
    if #old == 0 then
      if last == '+' then total, changed = 0, true end -- the stream is empty: the count was wrong
      break
    end
    local gone = {}
    for _, e in ipairs(old) do
      if total <= keep then break end
      local archived = mark == nil or audit_archived(e[1], mark, not board)
      if not archived and total <= hard then
        blocked = true
        break
      end
      local f, n = e[2], 1
      for i = 1, #f, 2 do
        if f[i] == 'n' then n = tonumber(f[i + 1]) or 1 end
      end
      total = total - n
      if not archived and board then lost = lost + n end
      gone[#gone + 1] = e[1]
    end
    if #gone > 0 then
      redis.call('XDEL', stream, unpack(gone))
      changed = true
    end
  end
  if changed then redis.call('HSET', counts, stream, math.max(total, 0)) end
  if lost > 0 then redis.call('HINCRBY', counts, 'unarchived', lost) end
end

local function audit_add(stream, actor_stream, actors, keep, actor, fields, rows)
  rows = rows or 1
  fields[#fields + 1], fields[#fields + 2] = 'n', tostring(rows)
  keep = tonumber(keep)
  local id = redis.call('XADD', stream, '*', unpack(fields))
  -- The actor's copy takes the board entry's id, so the archive (a copy of
  -- the board's stream) continues the actor's stream exactly. It is always
  -- above the actor stream's last id (the actor's entries are earlier board
  -- entries), unless that stream was written before ids were shared and the
  -- clock stepped: then it takes an id of its own rather than fail the
  -- script after its writes.
  local r = redis.pcall('XADD', actor_stream, id, unpack(fields))
  if type(r) == 'table' and r.err then redis.call('XADD', actor_stream, '*', unpack(fields)) end
  local counts = stream .. ':rows'
  local mark = redis.call('HGET', counts, 'archived')
  if mark then
    local ms, seq = audit_id(mark)
    mark = ms and {ms, seq, mark} or nil
  else
    mark = nil
  end
  audit_trim(counts, stream, rows, keep, mark, true)
  audit_trim(counts, actor_stream, rows, keep, mark, false)
  redis.call('SADD', actors, actor)
end

local function now_ms()
  local t = redis.call('TIME')
  return t[1] .. string.format('%03d', math.floor(tonumber(t[2]) / 1000))
end

-- The period label (Period.String) of a score zset key lb:{b}:<letter>:<key>.
local KIND_OF = {d = 'day', w = 'week', m = 'month', y = 'year'}
local function label_of(z)
  local window = string.match(z, '}:r:(%w+)$')
  if window then return 'last' .. window end
  local letter, key = string.match(z, '}:(%a):([^:]+)$')
  if letter and KIND_OF[letter] then return KIND_OF[letter] .. ':' .. key end
  return 'all'
end

-- The keys a frozen copy takes of a period: its sorted set, entries, dense
-- index, and its team standing (redisstore/team.go).
local FROZEN_SUFFIXES = {'', ':e', ':d', ':c', ':t', ':tn', ':ts', ':t:d', ':t:c'}

-- frozen_names_on caches, per board tag, whether its freeze is taken (so
-- name changes save the names of the freeze) for the rest of the script.
local frozen_names_on = {}

-- Take a board's freeze (redisstore/freeze.go) once its time has come: copy each
-- period that was current at the freeze, with its helper keys, to its frozen
-- keys, and the recent changes, in the caller's atomic step. Every write
-- through the app calls it first, so no write made after the freeze reaches
-- the copy. The marker names the keys (all in the board's slot). Display
-- names are not copied (a hash as big as the board): from now on each
-- change saves the name it replaces (frozen_name_keep). Returns 'none' (not
-- frozen), 'pending' (its time has not come), 'taken' (already) or 'took',
-- and the freeze's time.
local function freeze_take(marker, now)
  local m = redis.call('HMGET', marker, 'at', 'taken', 'keys')
  if not m[1] then return 'none', '' end
  if m[2] then return 'taken', m[1] end
  if tonumber(m[1]) > tonumber(now) then return 'pending', m[1] end
  for src, dst in string.gmatch(m[3] or '', '(%S+) (%S+)') do
    for _, sfx in ipairs(FROZEN_SUFFIXES) do
      redis.call('DEL', dst .. sfx)
      redis.call('COPY', src .. sfx, dst .. sfx)
    end
  end
  -- The teams' members as they were (redisstore/team.go): a team page of the
  -- freeze lists who was in the team then.
  local tag = string.match(marker, '^(lb:{[^}]*})')
  local teams = redis.call('SMEMBERS', tag .. ':teams')
  redis.call('DEL', tag .. ':frz:teams')
  if #teams > 0 then
    redis.call('COPY', tag .. ':teams', tag .. ':frz:teams')
    for _, t in ipairs(teams) do
      redis.call('DEL', tag .. ':frz:team:m:' .. t)
      redis.call('COPY', tag .. ':team:m:' .. t, tag .. ':frz:team:m:' .. t)
    end
  end
  -- The recent changes as they stood (a list of the board's recent-list
  -- length), and no names saved during an earlier freeze.
  redis.call('DEL', tag .. ':frz:recent', tag .. ':frz:names', tag .. ':frz:names:idx')
  redis.call('COPY', tag .. ':recent', tag .. ':frz:recent')
  redis.call('HSET', marker, 'taken', now)
  frozen_names_on[tag] = true
  return 'took', m[1]
end

-- frozen_name_keep is called before a member's display name changes (set,
-- renamed, first given on first sight, or forgotten by a removal). While
-- the board's freeze is taken, the first change after it saves the name
-- the member had ('' none) in <tag>:frz:names, and its index entry in
-- <tag>:frz:names:idx: the public reads of a frozen board read names there
-- first (names_get, search.lua). It costs one HEXISTS a script when the
-- board is not frozen, and a few hash commands per member and freeze when
-- it is.
local function frozen_name_keep(tag, id)
  local on = frozen_names_on[tag]
  if on == nil then
    on = redis.call('HEXISTS', tag .. ':freeze', 'taken') == 1
    frozen_names_on[tag] = on
  end
  if not on then return end
  local saved = tag .. ':frz:names'
  local name = redis.call('HGET', tag .. ':names', id)
  if redis.call('HSETNX', saved, id, name or '') == 0 or not name then return end
  local lower = redis.call('HGET', tag .. ':names:lc', id)
  if lower then redis.call('ZADD', tag .. ':frz:names:idx', 0, lower .. '\0' .. id) end
end

-- freeze_due takes a board's freeze first when its time (freeze_at, the
-- definition's field, µs) has come by now (µs; nil: Redis' clock).
local function freeze_due(freeze_at, marker, now)
  if not freeze_at or freeze_at == '' then return end
  if not now then
    local t = redis.call('TIME')
    now = t[1] .. string.format('%06d', tonumber(t[2]))
  end
  if tonumber(freeze_at) <= tonumber(now) then freeze_take(marker, now) end
end

-- frozen_board_expire lets a freeze's copies of the board's recent changes
-- and names expire after ms (0: at once).
local function frozen_board_expire(tag, ms)
  for _, k in ipairs({tag .. ':frz:recent', tag .. ':frz:names', tag .. ':frz:names:idx'}) do
    if ms == 0 then redis.call('DEL', k) else redis.call('PEXPIRE', k, ms) end
  end
end

-- frozen_teams_expire lets a freeze's copies of the teams' members expire
-- after ms (0: at once).
local function frozen_teams_expire(tag, ms)
  for _, t in ipairs(redis.call('SMEMBERS', tag .. ':frz:teams')) do
    if ms == 0 then redis.call('DEL', tag .. ':frz:team:m:' .. t) else redis.call('PEXPIRE', tag .. ':frz:team:m:' .. t, ms) end
  end
  if ms == 0 then redis.call('DEL', tag .. ':frz:teams') else redis.call('PEXPIRE', tag .. ':frz:teams', ms) end
end
