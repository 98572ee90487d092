/**
 * KEYS: the stream, its index, its results count. ARGV: results kept at least, the oldest time
 * kept (ms), index entries looked at most. Drops the oldest entries while those left hold that
 * many results, and any older than the retention. Returns the results dropped.
 */
export const TRIM_RESULTS = `
local left = tonumber(redis.call('GET', KEYS[3]) or '0')
local items = redis.call('LRANGE', KEYS[2], 0, tonumber(ARGV[3]) - 1)
local dropped, last, k = 0, nil, 0
for i, item in ipairs(items) do
  local id, n = string.match(item, '^(%S+) (%d+)$')
  n = tonumber(n)
  local ms = tonumber(string.match(id, '^(%d+)'))
  if ms >= tonumber(ARGV[2]) and left - n < tonumber(ARGV[1]) then break end
  left = left - n
  dropped = dropped + n
  last = id
  k = i
end
if k == 0 then return 0 end
local ms, seq = string.match(last, '^(%d+)-(%d+)$')
redis.call('XTRIM', KEYS[1], 'MINID', ms .. '-' .. (tonumber(seq) + 1))
redis.call('LTRIM', KEYS[2], k, -1)
if redis.call('DECRBY', KEYS[3], dropped) < 0 then redis.call('SET', KEYS[3], 0) end
return dropped
`;
