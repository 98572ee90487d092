/**
 * KEYS: the service's schema texts (slot to JSON text), its entries (slot to
 * `<seen at ms> <chars> <trace id> <tool name>`), and the services learned from (a sorted set:
 * service to when it was seen, ms). ARGV: now ms, TTL ms, entries per service, characters per
 * service, services, the service, the key base of services' keys (texts `<base>:t:<service>`,
 * entries `<base>:e:<service>`: in the same slot, by the base's hash tag), then per slot: slot,
 * trace id, tool name, characters, text.
 * Writes the slots, then drops the service's entries older than the TTL and, past its bounds,
 * those seen longest ago (of one put, the first listed); then drops the services not seen within the TTL and, past their bound,
 * those seen longest ago, with their keys. Returns the service's entries kept.
 */
export const PUT_SCHEMAS = `
local now = tonumber(ARGV[1])
local ttl = tonumber(ARGV[2])
local maxEntries = tonumber(ARGV[3])
local maxChars = tonumber(ARGV[4])
local maxServices = tonumber(ARGV[5])
local service = ARGV[6]
local base = ARGV[7]
-- Slots of this put, in order: of entries seen at the same time, the later listed is the newer.
local rank = {}
for i = 8, #ARGV, 5 do
  rank[ARGV[i]] = i
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 4])
  redis.call('HSET', KEYS[2], ARGV[i], now .. ' ' .. ARGV[i + 3] .. ' ' .. ARGV[i + 1] .. ' ' .. ARGV[i + 2])
end
local entries = redis.call('HGETALL', KEYS[2])
local list, total = {}, 0
for i = 1, #entries, 2 do
  local at, chars = string.match(entries[i + 1], '^(%d+) (%d+) ')
  at = tonumber(at) or 0
  chars = tonumber(chars) or 0
  if at <= now - ttl then
    redis.call('HDEL', KEYS[1], entries[i])
    redis.call('HDEL', KEYS[2], entries[i])
  else
    list[#list + 1] = { entries[i], at, chars }
    total = total + chars
  end
end
table.sort(list, function(a, b)
  if a[2] ~= b[2] then return a[2] < b[2] end
  return (rank[a[1]] or 0) < (rank[b[1]] or 0)
end)
local kept, i = #list, 1
while (kept > maxEntries or total > maxChars) and i <= #list do
  redis.call('HDEL', KEYS[1], list[i][1])
  redis.call('HDEL', KEYS[2], list[i][1])
  total = total - list[i][3]
  kept = kept - 1
  i = i + 1
end
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('ZADD', KEYS[3], now, service)
local drop = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now - ttl)
local over = redis.call('ZCARD', KEYS[3]) - #drop - maxServices
if over > 0 then
  local oldest = redis.call('ZRANGE', KEYS[3], #drop, #drop + over - 1)
  for _, s in ipairs(oldest) do drop[#drop + 1] = s end
end
for _, s in ipairs(drop) do
  redis.call('DEL', base .. ':t:' .. s, base .. ':e:' .. s)
  redis.call('ZREM', KEYS[3], s)
end
redis.call('PEXPIRE', KEYS[3], ttl)
return kept
`;
