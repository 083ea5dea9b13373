-- Counts a failed sign-in (see Limiter in limits.go).
-- KEYS[1] failures of this account from this address
-- KEYS[2] failures of this account from anywhere
-- KEYS[3] the account's delay: present while the next attempt must wait
-- ARGV: window ms, failures before the delay starts, first delay ms, max delay ms
-- Returns {failures from this address, failures on the account, delay ms}.
local window = tonumber(ARGV[1])
local pair = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], window)
local total = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], window)
local over = total - tonumber(ARGV[2])
local delay = 0
if over > 0 then
  delay = math.min(tonumber(ARGV[3]) * 2 ^ math.min(over - 1, 40), tonumber(ARGV[4]))
  delay = math.floor(delay)
  if delay > 0 then
    redis.call('SET', KEYS[3], '1', 'PX', delay)
  end
end
return {pair, total, delay}
