-- redact: an audit entry without an erased member (redisstore/erase.go).
-- audit/redact.go applies the same rule in Go to the archive's copies of the
-- entries; a test holds the two together. The entry's fields are the flat
-- list XRANGE gives (name, value, name, value...), changed in place.
--
-- An entry is about the member when its member field is the member's id, or
-- a line of its items (a batch, a removal) or of its teams starts with it.
-- Then: the id becomes the pseudonym, the display name a line set is
-- cleared, a rename's before and after become '(erased)'. A reason (free
-- text) that names the member's id or one of its names is replaced by
-- '(erased)': anywhere in it in an entry about the member, as a whole word
-- (not inside a longer run of letters, digits, '_' and '-') in any other;
-- the names are those given and those the entry itself shows the member
-- with. In an entry about the member, a before or after that names it
-- (a personal link's label: "personal Alice L. (k3f9a2)") is replaced by
-- '(erased)' too.

local REDACTED = '(erased)'

-- A word byte: an ASCII letter, digit, '_' or '-' (bytes of other
-- characters are boundaries).
local function redact_word(c) return c ~= '' and string.find(c, '^[%w_%-]$') ~= nil end

-- Whether text holds one of needles: anywhere, or as a whole word.
local function redact_mentions(text, needles, anywhere)
  for _, n in ipairs(needles) do
    if n ~= '' then
      local init = 1
      while true do
        local i, j = string.find(text, n, init, true)
        if not i then break end
        if anywhere or (not redact_word(string.sub(text, i - 1, i - 1)) and not redact_word(string.sub(text, j + 1, j + 1))) then
          return true
        end
        init = i + 1
      end
    end
  end
  return false
end

-- The parts of s between seps, empty ones included.
local function redact_split(s, sep)
  local out = {}
  for part in string.gmatch(s .. sep, '([^' .. sep .. ']*)' .. sep) do out[#out + 1] = part end
  return out
end

-- Lines (member first, tab-separated) with the member's id replaced; clear
-- is the column of a display name to clear (0: none), which is added to
-- names. Returns the text and whether it changed.
local function redact_lines(text, old, new, clear, names)
  local lines, changed = redact_split(text, '\n'), false
  for i, line in ipairs(lines) do
    local cols = redact_split(line, '\t')
    if cols[1] == old then
      cols[1] = new
      if clear > 0 and cols[clear] and cols[clear] ~= '' then
        names[#names + 1] = cols[clear]
        cols[clear] = ''
      end
      lines[i], changed = table.concat(cols, '\t'), true
    end
  end
  return table.concat(lines, '\n'), changed
end

-- redact_entry applies the rule to f, an entry of board (its board field;
-- '' any); names are the display names the member had (the names this
-- entry shows it with count too). Returns whether anything changed.
local function redact_entry(f, old, new, names, board)
  local at = {}
  for i = 1, #f - 1, 2 do at[f[i]] = i + 1 end
  local function get(k) return at[k] and f[at[k]] end
  if board ~= '' and get('board') ~= board then return false end
  local needles = {old}
  for _, n in ipairs(names) do needles[#needles + 1] = n end
  local about, changed = false, false
  if get('member') == old then
    f[at.member], about, changed = new, true, true
    if get('action') == 'member.rename' then
      for _, k in ipairs({'before', 'after'}) do
        if at[k] then
          needles[#needles + 1] = f[at[k]]
          f[at[k]] = REDACTED
        end
      end
    end
  end
  for _, part in ipairs({{'items', 8}, {'teams', 0}, {'segments', 0}}) do
    local v = get(part[1])
    if v and v ~= '' then
      local out, ch = redact_lines(v, old, new, part[2], needles)
      if ch then f[at[part[1]]], about, changed = out, true, true end
    end
  end
  local reason = get('reason')
  if reason and reason ~= '' and reason ~= REDACTED and redact_mentions(reason, needles, about) then
    f[at.reason], changed = REDACTED, true
  end
  if about then -- what the member's own entries say of it: a personal link's label names it
    for _, k in ipairs({'before', 'after'}) do
      local v = get(k)
      if v and v ~= '' and v ~= REDACTED and redact_mentions(v, needles, true) then
        f[at[k]], changed = REDACTED, true
      end
    end
  end
  return changed
end
