-- Webhook events, shared by detect.lua and closed.lua, which follow this
-- file (redisstore.Script: after the libraries it uses; ranks reads ARGV[1-4]).
-- The events of a board are queued by the same script that decides them, with
-- the state that decided them: a second replica running the script next finds
-- the state moved on and queues nothing.
-- uses: ranks
-- KEYS: 1 hooks hash, 2 state hash, 3 delivery queue, 4 event counter, 5 display names.
-- ARGV: 5 board id, 6 now (Unix ms), 7 queue cap.
local K_HOOKS, K_STATE, K_QUEUE, K_SEQ, K_NAMES = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local BOARD, NOW, QCAP = ARGV[5], ARGV[6], ARGV[7]

-- The enabled hooks (a registration that does not decode is skipped, never fatal).
local function load_hooks()
  local flat = redis.call('HGETALL', K_HOOKS)
  local hs = {}
  for i = 2, #flat, 2 do
    local ok, h = pcall(cjson.decode, flat[i])
    if ok and type(h) == 'table' and h.enabled == true and type(h.id) == 'string' then hs[#hs + 1] = h end
  end
  return hs
end

local function has(list, v)
  if type(list) ~= 'table' then return false end
  for _, x in ipairs(list) do
    if x == v then return true end
  end
  return false
end

-- The hooks that want event ev on periods of kind (no periods listed: all).
local function wanting(hs, ev, kind)
  local out = {}
  for _, h in ipairs(hs) do
    if has(h.events, ev) and (type(h.periods) ~= 'table' or #h.periods == 0 or has(h.periods, kind)) then
      out[#out + 1] = h
    end
  end
  return out
end

-- One id per event, shared by every hook it goes to.
local function event_id() return BOARD .. '-' .. redis.call('INCR', K_SEQ) end

-- One queue entry per hook: the delivery, read by one replica of the group.
local function queue(h, id, ev, period, data)
  redis.call('XADD', K_QUEUE, 'MAXLEN', '~', QCAP, '*', 'hook', h.id, 'event', id, 'type', ev,
    'at', NOW, 'period', period, 'data', data)
end
