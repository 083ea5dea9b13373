-- base: helpers that read no script argument, for every script that
-- includes a library: number text, a board's key names, period labels,
-- Redis' clock, and the repeated parts of KEYS and ARGV.

-- fmt writes a score as Redis does, exactly (17 significant digits). A
-- whole number (every score of a board in units) short of 10^16 takes the
-- integer path of string.format, which writes the same digits several times
-- faster than %.17g; zero takes %.17g, which keeps the sign of -0.
local function fmt(x)
  if x % 1 == 0 and x < 1e16 and x > -1e16 and x ~= 0 then return string.format('%d', x) end
  return string.format('%.17g', x)
end

-- tag_of is the lb:{<board>} prefix of any of a board's keys.
local function tag_of(key) return string.match(key, '^(lb:{[^}]*})') end

-- now_ms is Redis' clock in milliseconds, as text.
local function now_ms()
  local t = redis.call('TIME')
  return t[1] .. string.format('%03d', math.floor(tonumber(t[2]) / 1000))
end

-- The period label (Period.String) of a score zset key lb:{b}:<letter>:<key>.
local KIND_OF = {d = 'day', w = 'week', m = 'month', y = 'year', c = 'custom'}
local function label_of(z)
  local window = string.match(z, '}:r:(%w+)$')
  if window then return 'last' .. window end
  local letter, key = string.match(z, '}:(%a):([^:]+)$')
  if letter and KIND_OF[letter] then return KIND_OF[letter] .. ':' .. key end
  return 'all'
end

-- The keys of a rolling window's buckets (redisstore/window.go); none for the
-- sorted set of a calendar period or all time.
local function bucket_keys(z)
  local out = {}
  if not string.match(z, '}:r:%w+$') then return out end
  for _, b in ipairs(redis.call('SMEMBERS', z .. ':bs')) do out[#out + 1] = z .. ':b:' .. b end
  return out
end

-- team_keys are the team standing keys of period zset z (redisstore/team.go).
local function team_keys(z) return {z .. ':t', z .. ':tn', z .. ':ts', z .. ':t:d', z .. ':t:c'} end

-- segment_keys are the segment standing keys period zset z holds
-- (redisstore/segment.go): each standing's zset and dense tie groups, and
-- the set z..':gs' that lists them ("<attribute>:<value>"); leagues'
-- cohort standings are among them, and their places z..':L', z..':Ln'
-- (lib/leagues.lua) and the result of the period's close z..':Lr'
-- (leagueclose.lua) go with them.
local function segment_keys(z)
  local out = {z .. ':gs', z .. ':L', z .. ':Ln', z .. ':Lr'}
  for _, av in ipairs(redis.call('SMEMBERS', z .. ':gs')) do
    out[#out + 1], out[#out + 2], out[#out + 3] = z .. ':g:' .. av, z .. ':gd:' .. av, z .. ':gc:' .. av
  end
  return out
end

-- part_at reads the i-th (1-based) of the parts that repeat in list (KEYS
-- or ARGV) after position from, each one value per name of names (the
-- script header's 'KEYS per <part>' or 'ARGV per <part>'), as a table by
-- name.
local function part_at(list, from, names, i)
  local at, out = from + (i - 1) * #names, {}
  for j, name in ipairs(names) do out[name] = list[at + j] end
  return out
end
