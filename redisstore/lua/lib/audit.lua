-- audit: the board's audit log, written by the script that makes the change.

-- Audit: append one entry (a flat field/value list holding rows rows) to the
-- board's audit stream and to its actor's, and note the actor; keys: stream,
-- actor stream, actors set. Written by the script that makes the change, in
-- its slot. Each stream keeps its newest keep rows: a batch is one entry of
-- many rows, so the count of rows, not entries, bounds its memory. The rows
-- each stream holds are counted in one hash per board (<board>:audit:rows,
-- field: the stream's key), and each entry says its own count (field n).
-- A stream is trimmed in steps (audit_step): it may hold up to a step's
-- rows beyond keep (1%, at most 1,000) before its oldest entries go, in one
-- XTRIM for the step rather than an XRANGE and an XDEL for every write.
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

-- audit_step is how many rows beyond keep a stream may hold before it is
-- trimmed: 1% of keep, from 1 (keep 100: trimmed on every write, exactly)
-- to 1,000 (keep 100,000 and more). Reading the oldest entries (for their
-- row counts and ids) and trimming them costs Redis a few commands a step,
-- not a few for every write.
local function audit_step(keep) return math.max(1, math.min(1000, math.floor(keep / 100))) end

-- The archive's mark ({ms, seq, id}) in a board's row counts hash, or nil.
local function audit_mark(counts)
  local mark = redis.call('HGET', counts, 'archived')
  if not mark then return nil end
  local ms, seq = audit_id(mark)
  return ms and {ms, seq, mark} or nil
end

-- Trim one stream after an entry of rows rows was appended; counts is the
-- board's row counts hash, marks a table holding the archive's mark once
-- read (field mark; read here when first needed: a write that trims
-- nothing reads none), and board whether this is the board's stream (what
-- the archive copies).
local function audit_trim(counts, stream, rows, keep, marks, board)
  local total = redis.call('HINCRBY', counts, stream, rows)
  if total <= keep + audit_step(keep) - 1 then return end
  if marks.read == nil then marks.mark, marks.read = audit_mark(counts), true end
  local mark = marks.mark
  local hard = keep
  if mark then hard = 2 * keep end
  -- Drop the oldest entries until the rest fit: read one, then more (an
  -- entry may hold a thousand rows, and all of it is read), then trim up to
  -- the last one read that goes. An entry the archive lacks stops the trim
  -- until the stream passes the hard bound.
  local count, lost, changed, blocked, from, upto = 1, 0, false, false, '-', nil
  while total > keep and not blocked do
    local last = '+'
    if total <= hard then last = audit_archived_end(mark, not board) end
    if last == nil then break end
    local old = redis.call('XRANGE', stream, from, last, 'COUNT', count)
    count = math.min(count * 2, 128)
    if #old == 0 then
      if last == '+' then total, changed = 0, true end -- every entry goes: the count was wrong
      break
    end
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
      upto = e[1]
    end
    if upto then from = '(' .. upto end
  end
  if upto then
    -- Every entry up to upto was read above and goes: XTRIM MINID drops
    -- the entries below the id that follows it.
    local ms, seq = audit_id(upto)
    redis.call('XTRIM', stream, 'MINID', string.format('%.0f-%.0f', ms, seq + 1))
    changed = true
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
  local counts, marks = stream .. ':rows', {}
  audit_trim(counts, stream, rows, keep, marks, true)
  audit_trim(counts, actor_stream, rows, keep, marks, false)
  redis.call('SADD', actors, actor)
end
