-- windows: rolling windows (redisstore/window.go): the buckets of now that
-- submit.lua writes, what a write offers a sum or best window, and members
-- leaving a window.
-- uses: encoding

-- winlib holds the library's functions: one local (a script may have 200,
-- and submit.lua needs its own).
local winlib = {}

-- winlib.setup takes submit.lua's rolling windows (wins: per window, the
-- index of its period among periods, the bucket of now, the mode ('sum' or
-- 'best') and the bucket's TTL in seconds) into their periods, and returns
-- the periods without the windows whose floor (the oldest bucket they
-- hold, raised by roll.lua) is past the bucket of now: a writer whose clock
-- is far behind writes outside them.
function winlib.setup(periods, tag, wins)
  if #wins == 0 then return periods end
  local fields, ws = {}, {}
  for w, win in ipairs(wins) do
    local per = periods[tonumber(win.period)]
    per.bucket, per.mode, per.ttl = win.bucket, win.mode, win.ttl
    per.bk, per.bs = per.z .. ':b:' .. per.bucket, per.z .. ':bs'
    fields[w], ws[w] = per.label, per
  end
  local floors = redis.call('HMGET', tag .. ':r:state', unpack(fields))
  for w = 1, #ws do
    if floors[w] and ws[w].bucket < floors[w] then ws[w].out = true end
  end
  local keep = {}
  for _, per in ipairs(periods) do
    if not per.out then keep[#keep + 1] = per end
  end
  return keep
end

-- winlib.ref is the item's plan in all time, or else in the board's longest
-- calendar period (ps: the item's plans of the periods before a window), or
-- nil on a board that keeps windows only.
function winlib.ref(periods, ps)
  local ref
  for j = 1, #ps do
    if ps[j] and not periods[j].bk then
      ref = ps[j]
      if periods[j].label == 'all' then break end
    end
  end
  return ref
end

-- winlib.offer is what a write offers a best window: the value of a best
-- or set; for incr and decr, the score the write reaches in all time, or in
-- the board's longest calendar period, or else in the window itself.
function winlib.offer(periods, ps, it, olds)
  if it.op ~= 'incr' and it.op ~= 'decr' then return it.val end
  local ref = winlib.ref(periods, ps)
  if ref then return tonumber(ref.news) end
  if it.op == 'incr' then return (tonumber(olds) or 0) + it.val end
  return (tonumber(olds) or 0) - it.val
end

-- winlib.change is the change a set or best made to the member's score in
-- all time, or in the board's longest calendar period: what a sum window
-- adds. Nil on a board that keeps windows only: the write then sets the
-- window itself.
function winlib.change(periods, ps)
  local ref = winlib.ref(periods, ps)
  if not ref then return nil end
  return tonumber(ref.news) - (tonumber(ref.olds) or 0)
end

-- winlib.forget takes a member out of a window's buckets: it left the
-- window (a removal, the size cap), so their old changes must not be taken
-- from a score it starts again.
function winlib.forget(z, id)
  for _, bk in ipairs(bucket_keys(z)) do redis.call('ZREM', bk, id) end
end

-- winlib.record writes what the applied items did into each window's
-- bucket of now: the change (sum) or the best offer (best), for members
-- still on the window after the call (capped: a later item may have
-- trimmed one; without a cap every member is).
function winlib.record(periods, plans, items, applied, capped)
  if #applied == 0 then return end
  for i, per in ipairs(periods) do
    if per.bk then
      for _, n in ipairs(applied) do
        local p, id = plans[n][i], items[n].id
        local e = capped and entry_of(per.z, per.e, id)
        if p.new and (not capped or (e and redis.call('ZSCORE', per.z, e))) then
          if per.mode == 'best' then
            local had = tonumber(redis.call('ZSCORE', per.bk, id))
            if not had or score_better(p.offer, had) then redis.call('ZADD', per.bk, fmt(p.offer), id) end
          else
            redis.call('ZINCRBY', per.bk, fmt(tonumber(p.news) - (tonumber(p.olds) or 0)), id)
          end
        end
      end
      redis.call('EXPIRE', per.bk, per.ttl)
      redis.call('SADD', per.bs, per.bucket)
    end
  end
end
