-- Rewrite a stream of audit entries without an erased member, a chunk a
-- call (redisstore/erase.go): a stream entry cannot change in place, so the
-- entries are copied, the member's redacted (lib/redact.lua), into a new
-- key of the stream's slot, under the same ids; the call that reaches the
-- end replaces the stream with the copy in the same step. Ids are kept, so
-- cursors handed out before still page on, and the archive's copies (by id)
-- still match. Entries appended meanwhile are copied by the last call;
-- entries trimmed from the head meanwhile are dropped from the copy; any
-- other change shows as a length that differs, and the copy starts over.
-- uses: redact
-- KEYS: 1 stream, 2 copy (a key of the stream's slot, this rewrite's own)
-- ARGV: 1 member, 2 pseudonym, 3 cut (entries up to this id are the
--   member's; later ones are whoever holds the id since), 4 after (the last
--   id copied; '' at the start), 5 count (entries per call), 6 ttl (ms: the
--   copy expires should the rewrite stop), 7 board (only entries of this
--   board are redacted; '' every entry), 8.. names (the member's)
-- Returns {'more', last id copied, entries changed}, {'done', entries
-- changed} once the stream is replaced (or found empty), or {'again'}.
local k_stream = KEYS[1]
local k_copy = KEYS[2]
local a_member = ARGV[1]
local a_pseudonym = ARGV[2]
local a_cut = ARGV[3]
local a_after = ARGV[4]
local a_count = ARGV[5]
local a_ttl = ARGV[6]
local a_board = ARGV[7]
local ARGV_FIXED = 7
local names = {}
for i = ARGV_FIXED + 1, #ARGV do names[#names + 1] = ARGV[i] end
local function le(a, b)
  local am, as = string.match(a, '^(%d+)%-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)%-(%d+)$')
  am, as, bm, bs = tonumber(am), tonumber(as), tonumber(bm), tonumber(bs)
  return am < bm or (am == bm and as <= bs)
end
local start = '-'
if a_after == '' then
  redis.call('DEL', k_copy)
else
  if redis.call('EXISTS', k_copy) == 0 then return {'again'} end -- it expired
  start = '(' .. a_after
end
local count = tonumber(a_count)
local es = redis.call('XRANGE', k_stream, start, '+', 'COUNT', count)
local changed = 0
for _, e in ipairs(es) do
  local f = e[2]
  if le(e[1], a_cut) and redact_entry(f, a_member, a_pseudonym, names, a_board) then changed = changed + 1 end
  redis.call('XADD', k_copy, e[1], unpack(f))
end
if #es == count then
  redis.call('PEXPIRE', k_copy, a_ttl)
  return {'more', es[#es][1], changed}
end
local first = redis.call('XRANGE', k_stream, '-', '+', 'COUNT', 1)
if #first == 0 then
  redis.call('DEL', k_copy)
  return {'done', changed}
end
redis.call('XTRIM', k_copy, 'MINID', first[1][1])
if redis.call('XLEN', k_copy) ~= redis.call('XLEN', k_stream) then
  redis.call('DEL', k_copy)
  return {'again'}
end
-- The copy's next id must not fall below what the stream handed out.
local info = redis.call('XINFO', 'STREAM', k_stream)
for i = 1, #info - 1, 2 do
  if info[i] == 'last-generated-id' then redis.pcall('XSETID', k_copy, info[i + 1]) end
end
redis.call('RENAME', k_copy, k_stream)
redis.call('PERSIST', k_stream)
return {'done', changed}
