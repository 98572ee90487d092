/**
 * Deletes a part's turns after its last pass (a part cut at a bound takes no more turns), unless a
 * turn came after the pass read it: then the pass after it (BullMQ runs one more when a turn
 * comes during a pass) releases it. Keeps the part's small bookkeeping (`first`, `n`, `cut`, …,
 * and `done`) until its keys expire, for the session's next part to say what it continues.
 *
 * KEYS: the part's hash. ARGV: the turns the pass read. Returns the bytes deleted (0 when the
 * part's keys are gone), or -1 when the part holds other turns than the pass read.
 */
export const RELEASE_SESSION_PART = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local fields = {}
for _, f in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(f, 1, 2) == 't:' then fields[#fields + 1] = f end
end
if #fields ~= tonumber(ARGV[1]) then return -1 end
local freed = 0
for _, f in ipairs(fields) do freed = freed + redis.call('HSTRLEN', KEYS[1], f) end
-- In slices: Lua's unpack is bounded by its stack (maxTraces may be large).
for i = 1, #fields, 256 do
  redis.call('HDEL', KEYS[1], unpack(fields, i, math.min(i + 255, #fields)))
end
redis.call('HSET', KEYS[1], 'bytes', 0, 'done', 1)
return freed
`;
