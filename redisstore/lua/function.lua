-- FCALL podium_submit 1 lb:{<board>}:def <member> <op> <value> [<name> [<idempotency key> [<field>...]]]
-- FCALL podium_submit_team 1 lb:{<board>}:def <member> <team> <op> <value> [...as above]
-- FCALL podium_submit_segments 1 lb:{<board>}:def <member> <segments> <op> <value> [...as above]
--
-- The supported way for outside writers (game servers) to write a board
-- directly in Redis: it does exactly what the API's submission does (every
-- enabled period, tie-break, extra fields, dense index, cap, display name,
-- recent changes, idempotency) in one atomic step, by running the same submit
-- script as the app. <value> is a whole number of the board's unit (1 for
-- integer and duration boards, 10^-places for decimal boards: 12.34 on a
-- 2-place board is 1234); <op> is incr, decr, set or best ('' is incr);
-- '' leaves <name> and <idempotency key> out. Returns the API's answer as
-- JSON (api_answer), or an error naming the problem.
-- The change is audited, as every write is, under the actor "redis:fcall".
-- Periods come from the schedule the app keeps beside the board (time zones
-- are not computable here); the app refreshes it hourly and on every change.
local LETTER = {day = 'd', week = 'w', month = 'm', year = 'y', custom = 'c'}
local KINDS = {'day', 'week', 'month', 'year', 'custom', 'all', 'last24h', 'last7d', 'last30d'}
local WINDOW = {last24h = 'r:24h', last7d = 'r:7d', last30d = 'r:30d'}
local MAX = 9007199254740992
local ACTOR = 'redis:fcall'

local function fail(msg) return redis.error_reply('ERR podium_submit: ' .. msg) end

-- shift_point writes a score in units as exact decimal text in the board's
-- unit, as board.Format.Number does: 1234 units on a 2-place board is 12.34.
-- s is the script's score text (%.17g: plain digits for every whole number
-- within 2^53).
local function shift_point(s, d)
  if d == 0 or string.find(s, '[eEn]') then
    if d == 0 then return s end
    return string.format('%.17g', tonumber(s) / 10 ^ d)
  end
  local sign = ''
  if string.sub(s, 1, 1) == '-' then sign, s = '-', string.sub(s, 2) end
  local int, frac = string.match(s, '^(%d*)%.?(%d*)$')
  if #int <= d then int = string.rep('0', d - #int + 1) .. int end
  local cut = #int - d
  int, frac = string.sub(int, 1, cut), string.sub(int, cut + 1) .. frac
  frac = string.gsub(frac, '0+$', '')
  if frac == '' then
    if int == '0' then return '0' end
    return sign .. int
  end
  return sign .. int .. '.' .. frac
end

-- api_answer is the API's answer to one submission, {"result": {member,
-- replayed, periods: [{period: {kind, key}, before, after}]}}, built from the
-- submit script's compact item ({periods = [{p, bs, br, as, ar}]}). Written
-- by hand: cjson writes numbers with 14 digits, and scores need up to 17. A
-- period has no title, start or end here (Lua in Redis knows no time zones).
local function api_answer(item, member, places)
  local function place(score, rank)
    if score == nil or score == '' then return 'null' end
    local t = '{"score":' .. shift_point(score, places)
    if rank and tonumber(rank) ~= 0 then t = t .. ',"rank":' .. string.format('%d', rank) end
    return t .. '}'
  end
  local ps = {}
  for i, x in ipairs(item.periods or {}) do
    local kind, key = string.match(x.p, '^([^:]+):?(.*)$')
    local period = '{"kind":' .. cjson.encode(kind)
    if key ~= '' then period = period .. ',"key":' .. cjson.encode(key) end
    ps[i] = '{"period":' .. period .. '},"before":' .. place(x.bs, x.br) .. ',"after":' .. place(x.as, x.ar) .. '}'
  end
  local head = '{"result":{"member":' .. cjson.encode(member)
  if item.replayed then head = head .. ',"replayed":true' end
  return head .. ',"periods":[' .. table.concat(ps, ',') .. ']}}'
end

local function hex15(x)
  local t = {}
  for i = 15, 1, -1 do
    local d = x % 16
    t[i] = string.format('%x', d)
    x = (x - d) / 16
  end
  return table.concat(t)
end

local function flip(h)
  return (string.gsub(h, '%x', function(c) return string.format('%x', 15 - tonumber(c, 16)) end))
end

-- component mirrors encoding.component in redisstore/entry.go for |v| <= 2^53.
local function component(v, higher_better, desc)
  local h
  if v >= 0 then h = '8' .. hex15(v) else h = '7' .. flip(hex15(-v - 1)) end
  if higher_better ~= desc then h = flip(h) end
  return h
end

-- whole reads an integer within ±2^53, compared as digits: a double would
-- round 2^53+1 down to 2^53 and let it through.
local function whole(s)
  if type(s) ~= 'string' then return nil end
  local sign, digits = string.match(s, '^([-+]?)(%d+)$')
  if not digits then return nil end
  digits = string.match(digits, '^0*(%d-)$')
  if digits == '' then return 0 end
  if #digits > 16 or (#digits == 16 and digits > '9007199254740992') then return nil end
  local v = tonumber(digits)
  if sign == '-' then v = -v end
  return v
end

-- utf8_ok: valid UTF-8 without control characters, and without invisible
-- format characters when strict (ids) or bidi controls (names). Mirrors
-- CheckMember and CheckName closely (Go refuses every Unicode Cf character).
local function utf8_ok(s, strict)
  local i, n, count = 1, #s, 0
  while i <= n do
    local c = string.byte(s, i)
    local cp, len
    if c < 0x80 then cp, len = c, 1
    elseif c >= 0xc2 and c <= 0xdf then cp, len = c % 0x20, 2
    elseif c >= 0xe0 and c <= 0xef then cp, len = c % 0x10, 3
    elseif c >= 0xf0 and c <= 0xf4 then cp, len = c % 0x08, 4
    else return false end
    if i + len - 1 > n then return false end
    for j = i + 1, i + len - 1 do
      local b = string.byte(s, j)
      if b < 0x80 or b > 0xbf then return false end
      cp = cp * 64 + (b % 64)
    end
    if (len == 3 and cp < 0x800) or (len == 4 and (cp < 0x10000 or cp > 0x10ffff)) or (cp >= 0xd800 and cp <= 0xdfff) then return false end
    if cp < 0x20 or cp == 0x7f or (cp >= 0x80 and cp < 0xa0) then return false end
    local bidi = (cp >= 0x202a and cp <= 0x202e) or (cp >= 0x2066 and cp <= 0x2069) or cp == 0x200e or cp == 0x200f or cp == 0x061c
    local invisible = cp == 0x200b or (cp >= 0x2060 and cp <= 0x2064) or cp == 0xfeff or cp == 0xad
    local format = cp == 0x200c or cp == 0x200d or (cp >= 0x600 and cp <= 0x605) or cp == 0x6dd or cp == 0x70f or cp == 0x180e or
      (cp >= 0xfff9 and cp <= 0xfffb) or cp == 0x110bd or (cp >= 0x1d173 and cp <= 0x1d17a) or (cp >= 0xe0000 and cp <= 0xe007f)
    if bidi or invisible or (strict and format) then return false end
    local space = cp == 0x20 or cp == 0x85 or cp == 0xa0 or cp == 0x1680 or (cp >= 0x2000 and cp <= 0x200a) or
      cp == 0x2028 or cp == 0x2029 or cp == 0x202f or cp == 0x205f or cp == 0x3000
    if strict and space and (i == 1 or i + len > n) then return false end -- ids neither start nor end with a space
    i, count = i + len, count + 1
  end
  return true, count
end

-- utc_hour is the id of the hourly bucket holding an instant in
-- microseconds: its UTC date and hour, "2026-11-22T13", as redisstore/window.go
-- writes it (days to a civil date after Howard Hinnant's algorithm).
local function utc_hour(us)
  local secs = math.floor(us / 1000000)
  local days = math.floor(secs / 86400)
  local hour = math.floor((secs - days * 86400) / 3600)
  local z = days + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local y = yoe + era * 400
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local d = doy - math.floor((153 * mp + 2) / 5) + 1
  local m = mp + 3
  if mp >= 10 then m = mp - 9 end
  if m <= 2 then y = y + 1 end
  return string.format('%04d-%02d-%02dT%02d', y, m, d, hour)
end

-- scheduled finds the key of the period holding now in a schedule field
-- ("start key start key ... end"), reading no further than it must: the
-- app rewrites the schedule hourly, so now is near its start, and an
-- hourly custom schedule lists 840 periods.
local function scheduled(list, now)
  list = list or ''
  local key
  for start, k in string.gmatch(list, '(%d+) (%S+)') do
    if tonumber(start) > now then return key end
    key = k
  end
  local stop = string.match(list, '(%d+)%s*$') -- past the last start: only before the end
  if key and stop and now < tonumber(stop) then return key end
  return nil
end

-- segments_arg reads podium_submit_segments' <segments>, a JSON object of
-- attribute -> value ("" leaves the attribute), against the board's
-- attributes (m.segments), as board.CheckSegments does; it returns the
-- submit script's "<attribute>\t<value>..." text, or nil and why not.
local function segments_arg(m, raw)
  local ok, obj = pcall(cjson.decode, raw or '')
  if not ok or type(obj) ~= 'table' then return nil, 'segments must be a JSON object of attribute -> value, as {"country":"NO"}' end
  local known = {}
  for a in string.gmatch(m.segments or '', '[^,]+') do known[a] = true end
  local attrs = {}
  for a, v in pairs(obj) do
    if type(a) ~= 'string' or not known[a] then return nil, 'the board has no segment attribute ' .. tostring(a) end
    if type(v) ~= 'string' then return nil, 'the value of ' .. a .. ' must be a string' end
    if v ~= '' and (#v > 32 or not utf8_ok(v, true) or string.match(v, '^%s') or string.match(v, '%s$')) then
      return nil, 'the value of ' .. a .. ' must be 1-32 bytes of printable UTF-8 without invisible characters or surrounding spaces'
    end
    attrs[#attrs + 1] = a
  end
  if #attrs == 0 then return nil, 'segments names no attribute' end
  table.sort(attrs)
  local w = {}
  for _, a in ipairs(attrs) do
    w[#w + 1], w[#w + 2] = a, obj[a]
  end
  return table.concat(w, '\t')
end

local function submit(keys, args, team, segraw)
  local def = keys[1]
  local tag = type(def) == 'string' and string.match(def, '^(lb:{[^{}]+}):def$')
  if not tag or #keys ~= 1 then return fail('pass exactly one key, the board definition lb:{<board>}:def') end
  local flat = redis.call('HGETALL', def)
  if #flat == 0 then return fail('there is no board at ' .. def) end
  local m = {}
  for i = 1, #flat, 2 do m[flat[i]] = flat[i + 1] end
  if m.format == 'decimal' and m.units ~= '1' then return fail('this board is being upgraded to exact units by the app; retry') end

  local member, op, value = args[1], args[2] or '', args[3]
  local name, idem = args[4] or '', args[5] or ''
  if not member or member == '' then return fail('member is required') end
  if #member > 128 then return fail('member is longer than 128 bytes') end
  if not utf8_ok(member, true) or string.match(member, '^%s') or string.match(member, '%s$') then -- %s: tabs and newlines too
    return fail('member must be printable UTF-8 without invisible characters or surrounding spaces')
  end
  if op == '' then op = 'incr' end
  if op ~= 'incr' and op ~= 'decr' and op ~= 'set' and op ~= 'best' then return fail('op must be incr, decr, set or best') end
  local v = whole(value)
  if not v then return fail('value must be a whole number of the board\'s unit within ±2^53 (12.34 on a 2-place board is 1234)') end
  if (op == 'incr' or op == 'decr') and v < 0 then return fail('value must not be negative with ' .. op) end
  if name ~= '' then
    local ok, chars = utf8_ok(name, false)
    if not ok or not string.match(name, '%S') then return fail('name must be printable text without bidi controls') end
    if chars > 64 then return fail('name is longer than 64 characters') end
  end
  if team ~= '' then
    if m.teams == nil or m.teams == '' then return fail('the board keeps no teams; enable them on the board first') end
    if #team > 64 then return fail('team is longer than 64 bytes') end
    if not utf8_ok(team, true) or string.match(team, '^%s') or string.match(team, '%s$') then
      return fail('team must be printable UTF-8 without invisible characters or surrounding spaces')
    end
  end
  local segs = ''
  if segraw then
    local why
    segs, why = segments_arg(m, segraw)
    if not segs then return fail(why) end
  end
  if idem ~= '' and (#idem > 128 or string.match(idem, '[%z\1-\32\127-\255]')) then
    return fail('idempotency key must be 1-128 printable ASCII characters without spaces')
  end

  local desc = m.order == 'higher'
  local fields = {}
  for spec in string.gmatch(m.fields or '', '[^,]+') do
    local _, dir = string.match(spec, '^(.*):(%a+)$')
    fields[#fields + 1] = dir == 'desc'
  end
  local nf = #args - 5
  if nf > 0 and nf ~= #fields then return fail('the board has ' .. #fields .. ' extra fields, got ' .. nf .. ' values') end
  local zero, given = {}, {}
  for i, fdesc in ipairs(fields) do
    zero[i] = component(0, fdesc, desc)
    if nf > 0 then
      local fv = whole(args[5 + i])
      if not fv then return fail('field ' .. i .. ' must be a whole number within ±2^53') end
      given[i] = component(fv, fdesc, desc)
    end
  end
  local FW = 16 * #fields
  local PW = FW
  if m.tie_break ~= 'member' then PW = PW + 16 end

  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
  local timepart = ''
  if m.tie_break == 'earliest' then timepart = component(now, false, desc)
  elseif m.tie_break == 'latest' then timepart = component(now, true, desc) end

  local sched = {}
  local flat2 = redis.call('HGETALL', tag .. ':sched')
  for i = 1, #flat2, 2 do sched[flat2[i]] = flat2[i + 1] end
  if sched.version ~= (m.version or '0') then return fail('the board\'s period schedule is out of date; the Podium app writes it at start and on every change: is it running?') end

  local enabled = {}
  for k in string.gmatch(m.periods or '', '[^,]+') do enabled[k] = true end
  local pkeys, labels, windows = {}, {}, {}
  for _, kind in ipairs(KINDS) do
    if enabled[kind] then
      local z, label
      if kind == 'all' then
        z, label = tag .. ':all', 'all'
      elseif WINDOW[kind] then
        z, label = tag .. ':' .. WINDOW[kind], kind
        local bucket
        if kind == 'last24h' then bucket = utc_hour(now) else bucket = scheduled(sched.bday, now) end
        if not bucket then return fail('no day in the schedule covers now; the Podium app refreshes it hourly: is it running?') end
        for _, x in ipairs({#labels + 1, bucket, m.window or 'sum', WINDOW_TTL[kind]}) do windows[#windows + 1] = x end
      else
        local key = scheduled(sched[kind], now)
        if not key then return fail('no ' .. kind .. ' period in the schedule covers now; the Podium app refreshes it hourly: is it running?') end
        z, label = tag .. ':' .. LETTER[kind] .. ':' .. key, kind .. ':' .. key
      end
      for _, k in ipairs({z, z .. ':e', z .. ':d', z .. ':c'}) do pkeys[#pkeys + 1] = k end
      labels[#labels + 1] = label
    end
  end

  local lower = string.lower(member)
  if name ~= '' then lower = string.lower(name) end
  local fpin = member .. '\0' .. op .. '\0' .. value .. '\0' .. name .. '\0' .. table.concat(given, ',')
  if team ~= '' then fpin = fpin .. '\0' .. team end -- a replay must name the same team
  if segs ~= '' then fpin = fpin .. '\0s' .. segs end -- and the same values
  local fp = redis.sha1hex(fpin)
  local K = {def, tag .. ':names', tag .. ':names:lc', tag .. ':names:idx', tag .. ':recent', tag .. ':periods', tag .. ':idem:batch:',
    tag .. ':audit', tag .. ':audit:a:' .. ACTOR, tag .. ':audit:actors', tag .. ':archive', tag .. ':freeze', tag .. ':held'}
  for _, k in ipairs(pkeys) do K[#K + 1] = k end
  K[#K + 1] = tag .. ':idem:' .. idem
  local dflag = '0'
  if desc then dflag = '1' end
  local A = {dflag, tostring(PW), tostring(FW), m.rank_style or 'competition', table.concat(zero), timepart,
    m.version or '0', '9007199254740992', m.cap or '0', '', tostring(IDEM_TTL), string.format('%.0f', now), tostring(RECENT_LEN),
    tostring(#labels), '1', '', 'atomic', '1', ACTOR, '', tostring(AUDIT_KEEP), ''}
  for _, l in ipairs(labels) do A[#A + 1] = l end
  for _, x in ipairs({op, string.format('%.0f', v), table.concat(given), member, name, lower, idem, fp, '', team, segs, ''}) do A[#A + 1] = x end
  for _, x in ipairs(windows) do A[#A + 1] = x end

  local r = submit_script(K, A)
  local st = r[1]
  if st == 'ok' or st == 'replay' then
    local places = 0
    if m.format == 'decimal' then places = tonumber(m.decimals) or 0 end
    local item = cjson.decode(r[2])[1]
    if item.held then -- a rule broken on a board that holds such writes: nothing applied yet
      return '{"result":{"member":' .. cjson.encode(member) .. ',"held":true,"rule":' .. cjson.encode(item.r) .. ',"periods":[]}}'
    end
    return api_answer(item, member, places)
  end
  if st == 'session' then return fail('this board takes scores only with a run\'s session token, which FCALL does not carry: submit through the API (POST /api/v1/boards/<board>/scores with "session"); nothing was written') end
  if st == 'rule' then return fail('the write breaks the board\'s rule ' .. r[3] .. ' (bound ' .. r[4] .. ' units); nothing was written') end
  if st == 'closed' and r[2] == 'opens' then return fail('the contest opens at ' .. r[3] .. ' (Unix microseconds); nothing was written') end
  if st == 'closed' then return fail('the contest closed at ' .. r[3] .. ' (Unix microseconds); nothing was written') end
  if st == 'archived' then return fail('period ' .. r[2] .. ' has closed and moved to the archive, where it no longer changes; nothing was written') end
  if st == 'reused' then return fail('idempotency key ' .. idem .. ' was already used for a different submission') end
  if st == 'segfull' then return fail('segment attribute ' .. r[3] .. ' already has 1000 values; a member must leave one first; nothing was written') end
  if st == 'range' then return fail('the ' .. r[3] .. ' score would leave ±2^53 units, which this board keeps exactly; nothing was written') end
  return fail('unexpected state ' .. tostring(st))
end

redis.register_function('podium_submit', function(keys, args) return submit(keys, args, '') end)

-- FCALL podium_submit_team 1 lb:{<board>}:def <member> <team> <op> <value> [<name> [<idempotency key> [<field>...]]]
-- is podium_submit that first moves the member to <team>, with its scores
-- in every period the board holds, in the same step (a board with teams).
redis.register_function('podium_submit_team', function(keys, args)
  local team = args[2]
  if not team or team == '' then return fail('team is required (podium_submit leaves the team as it is)') end
  table.remove(args, 2)
  return submit(keys, args, team)
end)

-- FCALL podium_submit_segments 1 lb:{<board>}:def <member> <segments> <op> <value> [<name> [<idempotency key> [<field>...]]]
-- is podium_submit that first gives the member the values of <segments>, a
-- JSON object such as {"country":"NO"} ("" leaves an attribute), moving its
-- scores in every period the board holds to the values' standings, in the
-- same step (a board with segments, redisstore/segment.go).
redis.register_function('podium_submit_segments', function(keys, args)
  local segs = args[2]
  if not segs or segs == '' then return fail('segments is required (podium_submit leaves the values as they are)') end
  table.remove(args, 2)
  return submit(keys, args, '', segs)
end)
