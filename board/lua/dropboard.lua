-- Delete a board and all its data. KEYS: 1 def, 2 names, 3 names:lc,
-- 4 names:idx, 5 recent, 6 periods set, 7 period schedule, 8 archive state (a
-- board made again under the id archives its periods anew). Period keys come from the periods set
-- and share the board's hash tag. Returns {'nf'} or {'ok', periods deleted}.
if redis.call('EXISTS', KEYS[1]) == 0 then return {'nf'} end
local zs = redis.call('SMEMBERS', KEYS[6])
for _, z in ipairs(zs) do
  redis.call('DEL', z, z .. ':e', z .. ':d', z .. ':c')
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8])
return {'ok', #zs}
