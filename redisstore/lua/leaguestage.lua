-- Stage results of a league period's close (redisstore/league_close.go),
-- a chunk at a time, before leagueclose.lua's save: each member's result
-- goes to the pass's own staged hash, listed in the period's staging set
-- (an erasure renames the member in every hash the set lists). A member
-- no longer in the period's places or the tiers (an erasure took it away
-- since the pass read the cohorts) is left out, so no erased id comes back
-- with the results.
-- KEYS: 1 tiers, 2 places (the period's z:L), 3 staged, 4 staging
-- ARGV: 1 ttl_ms (how long the staged hash and the set live)
-- ARGV per result: 1 member, 2 result (encodeResult's)
-- Returns how many results were staged.
-- uses: base
local k_tiers = KEYS[1]
local k_places = KEYS[2]
local k_staged = KEYS[3]
local k_staging = KEYS[4]
local a_ttl_ms = ARGV[1]
local ARGV_FIXED = 1
local ARGV_PER_RESULT = {'member', 'result'}

local n = 0
for i = 1, (#ARGV - ARGV_FIXED) / #ARGV_PER_RESULT do
  local r = part_at(ARGV, ARGV_FIXED, ARGV_PER_RESULT, i)
  if redis.call('HEXISTS', k_places, r.member) == 1 or redis.call('HEXISTS', k_tiers, r.member) == 1 then
    redis.call('HSET', k_staged, r.member, r.result)
    n = n + 1
  end
end
redis.call('SADD', k_staging, k_staged)
redis.call('PEXPIRE', k_staged, a_ttl_ms)
redis.call('PEXPIRE', k_staging, a_ttl_ms)
return n
