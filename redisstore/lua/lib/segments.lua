-- segments: segment standings (redisstore/segment.go), kept by the scripts
-- that change scores, in the same step. A board's attributes are its
-- definition's 'segments' field ("country,class"). A member's value of
-- attribute a is in <tag>:seg:<a> (member -> value), and <tag>:seg:<a>:n
-- counts the members holding each value (a value nobody holds is deleted:
-- its length bounds the attribute's values).
-- Per period zset z and value v of a, z..':g:<a>:<v>' is a group
-- standing: the entries of z of the members whose a is v, exactly as z
-- holds them (entry and score), so ties, the tie-break and ranks read on
-- it as on z (rows, rank_at); a dense board keeps its tie groups in
-- z..':gd:<a>:<v>' and z..':gc:<a>:<v>'. z..':gs' lists the "<a>:<v>"
-- standings z holds (segment_keys). Leagues' cohorts are meant to be
-- group standings too: group_move knows nothing of attributes.
-- uses: encoding

-- seg holds the library's functions: one local (a script may have 200).
-- seg.MAX_VALUES bounds the distinct values of one attribute at a time
-- (board.MaxSegmentValues).
local seg = {MAX_VALUES = 1000}

-- seg_attrs reads the definition's attribute list.
function seg.attrs(field)
  local out = {}
  for a in string.gmatch(field or '', '[^,]+') do out[#out + 1] = a end
  return out
end

-- seg.parse reads the submit script's "<attribute>\t<value>..." text as
-- {attribute, value} pairs.
function seg.parse(text)
  local out, w, at = {}, {}, 1
  while true do
    local tab = string.find(text, '\t', at, true)
    if not tab then
      w[#w + 1] = string.sub(text, at)
      break
    end
    w[#w + 1], at = string.sub(text, at, tab - 1), tab + 1
  end
  for j = 1, #w - 1, 2 do out[#out + 1] = {w[j], w[j + 1]} end
  return out
end

-- group_move moves one member's entry in group standing gz (tie groups gd,
-- gc) from old (entry, score; false: not in it) to new.
function seg.group_move(gz, gd, gc, old, olds, new, news)
  if old and redis.call('ZREM', gz, old) == 1 then group_del(gd, gc, old, olds) end
  if new then
    redis.call('ZADD', gz, news, new)
    group_add(gd, gc, new, news)
  end
end

-- seg_place moves a member's entry in period z's standing of av
-- ("<attribute>:<value>") from old to new (false: none).
function seg.place(z, av, old, olds, new, news)
  seg.group_move(z .. ':g:' .. av, z .. ':gd:' .. av, z .. ':gc:' .. av, old, olds, new, news)
  if new then redis.call('SADD', z .. ':gs', av) end
end

-- seg_changed marks closed period z changed for the archiver once it has
-- copied it (its segments are archived with its members), as teamlib.changed.
function seg.changed(tag, z)
  local label = label_of(z)
  local v = redis.call('HGET', tag .. ':archive', label)
  if v and not string.find(v, ' x', 1, true) then
    redis.call('HSET', tag .. ':archive', label, '0 ' .. now_ms() .. '000 changed')
  end
end

-- seg_full: would giving a member value v of attribute a add a value past
-- max? extra counts values this call adds already (value -> true).
function seg.full(tag, a, v, max, extra)
  if v == '' or extra[a .. ':' .. v] then return false end
  local n = tag .. ':seg:' .. a .. ':n'
  if redis.call('HEXISTS', n, v) == 1 then return false end
  local more = 0
  for k in pairs(extra) do
    if string.sub(k, 1, #a + 1) == a .. ':' then more = more + 1 end
  end
  return redis.call('HLEN', n) + more >= max
end

-- seg_join gives member id value v of attribute a ('' none), moving its
-- entries in every period zs lists from the old value's standings to the
-- new one's. Returns the value it left ('' none), or false when unchanged.
function seg.join(tag, a, id, v, zs)
  local hk = tag .. ':seg:' .. a
  local was = redis.call('HGET', hk, id) or ''
  if was == v then return false end
  for _, z in ipairs(zs) do
    local e = entry_of(z, z .. ':e', id)
    local s = e and redis.call('ZSCORE', z, e)
    if s then
      if was ~= '' then seg.place(z, a .. ':' .. was, e, s, false) end
      if v ~= '' then seg.place(z, a .. ':' .. v, false, false, e, s) end
      seg.changed(tag, z)
    end
  end
  if was ~= '' and redis.call('HINCRBY', hk .. ':n', was, -1) <= 0 then redis.call('HDEL', hk .. ':n', was) end
  if v == '' then
    redis.call('HDEL', hk, id)
  else
    redis.call('HSET', hk, id, v)
    redis.call('HINCRBY', hk .. ':n', v, 1)
  end
  return was
end

-- seg_leave takes member id out of every attribute (zs: the periods whose
-- standings still hold it).
function seg.leave(tag, attrs, id, zs)
  for _, a in ipairs(attrs) do seg.join(tag, a, id, '', zs) end
end

-- seg_values: per attribute, the values of ids (false: none).
function seg.values(tag, attrs, ids)
  local out = {}
  for i, a in ipairs(attrs) do
    if #ids > 0 then out[i] = redis.call('HMGET', tag .. ':seg:' .. a, unpack(ids)) else out[i] = {} end
  end
  return out
end

-- seg_move follows one member's change in period z in its segments: from
-- old (entry, score; false none) to new. vals[i] is its value of attrs[i].
function seg.move(attrs, vals, z, old, olds, new, news)
  for i, a in ipairs(attrs) do
    if vals[i] then seg.place(z, a .. ':' .. vals[i], old, olds, new, news) end
  end
end

-- seg_drop takes member id's entry e (score s) out of its segment
-- standings of z: a size cap trimmed it.
function seg.drop(tag, attrs, z, id, e, s)
  local vals = {}
  for i, a in ipairs(attrs) do vals[i] = redis.call('HGET', tag .. ':seg:' .. a, id) end
  seg.move(attrs, vals, z, e, s, false, false)
end

-- seg.after is member id's entry and score in period per after a call:
-- final's (the plans' end state for the period) when given, else read back;
-- false, nil when it holds none.
function seg.after(per, final, id)
  if final then return final[id][1], final[id][2] end
  local ne = entry_of(per.z, per.e, id)
  local ns = ne and redis.call('ZSCORE', per.z, ne)
  if not ns then return false, nil end
  return ne, ns
end

-- seg_follow moves the segment standings along with a call's changes, as
-- teamlib.follow: each member from its entry and score before the call (orig)
-- to those after it, final's (the plans' end state) when given, else read
-- back.
function seg.follow(tag, attrs, periods, ids, orig, final)
  if #attrs == 0 or #ids == 0 then return end
  local vals = seg.values(tag, attrs, ids)
  for j, id in ipairs(ids) do
    local mine, any = {}, false
    for i = 1, #attrs do
      mine[i] = vals[i][j]
      any = any or mine[i]
    end
    if any then
      for i, per in ipairs(periods) do
        local o, ne, ns = orig[i][id], seg.after(per, final and final[i], id)
        if o[1] ~= ne or (ne and tonumber(o[2]) ~= tonumber(ns)) then
          seg.move(attrs, mine, per.z, o[1], o[2], ne, ns)
        end
      end
    end
  end
end

-- seg_rename renames (ne: the new entry) or drops (ne false) entry e with
-- score s in every segment standing of z that holds it: an erasure.
function seg.rename(z, e, s, ne)
  for _, av in ipairs(redis.call('SMEMBERS', z .. ':gs')) do
    if redis.call('ZSCORE', z .. ':g:' .. av, e) then seg.place(z, av, e, s, ne, s) end
  end
end
