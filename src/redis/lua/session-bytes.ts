/**
 * The bytes all sessions hold in Redis, on a slot of their own (see `session-keys.ts`).
 *
 * KEYS: the total (a string), the bytes of each part (a hash: part to bytes), when each part's
 * keys expire (a sorted set, ms), the parts due for a pass (a sorted set by when, ms; 0 while a
 * pass is under way), the bytes of the marks of refused parts (a string: see `mark`). ARGV: the
 * mode, now (ms), the part, then per mode:
 * - `admit` (a turn would open the part): its bytes, when its keys expire, when its pass is due,
 *   the most bytes in all. Refused (`{0, total}`) when the total would pass the most; else counted.
 * - `add` (a turn joined the part, or was admitted for another than it joined): the bytes
 *   (negative to give bytes back), when its keys expire and when its pass is due ('' keeps either).
 * - `scored` (a pass ended and the part is kept for late turns): no longer due, unless a turn
 *   came during the pass (its due time is then no longer 0).
 * - `release` (the part's turns were deleted after its last pass): its bytes leave the total.
 * - `mark` (admission refused the part; its member is `~<part>:<id>`): the bytes of its mark
 *   (`refuse-session-part`), when it expires, '', the most bytes all marks may hold. Refused
 *   (`{0, marks}`) past the most; else counted in the marks' total, not the parts'. Negative
 *   bytes give a mark's bytes back.
 *
 * Every call first takes out up to 16 parts whose keys have expired: their bytes leave the total
 * without a scan of the session keys, the expired parts found in `O(log n)` by the sorted set.
 * Returns `{1 (0: refused), total}`.
 */
export const SESSION_BYTES = `
local total, bytes, expiry, due, marks = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local mode, now, member = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local function forget(m)
  local b = redis.call('HGET', bytes, m)
  if b then
    if string.sub(m, 1, 1) == '~' then redis.call('DECRBY', marks, b) else redis.call('DECRBY', total, b) end
    redis.call('HDEL', bytes, m)
  end
  redis.call('ZREM', expiry, m)
  redis.call('ZREM', due, m)
end
for _, m in ipairs(redis.call('ZRANGEBYSCORE', expiry, '-inf', now, 'LIMIT', 0, 16)) do forget(m) end
if mode == 'release' then
  forget(member)
  return {1, tonumber(redis.call('GET', total) or '0')}
end
if mode == 'scored' then
  if redis.call('ZSCORE', due, member) == '0' then redis.call('ZREM', due, member) end
  return {1, tonumber(redis.call('GET', total) or '0')}
end
local delta = tonumber(ARGV[4])
if mode == 'mark' then
  local held = tonumber(redis.call('GET', marks) or '0')
  if delta > 0 and held + delta > tonumber(ARGV[7]) then return {0, held} end
  redis.call('HINCRBY', bytes, member, delta)
  if ARGV[5] ~= '' then redis.call('ZADD', expiry, ARGV[5], member) end
  return {1, redis.call('INCRBY', marks, delta)}
end
if mode == 'admit' then
  local held = tonumber(redis.call('GET', total) or '0')
  if held + delta > tonumber(ARGV[7]) then return {0, held} end
end
redis.call('HINCRBY', bytes, member, delta)
local now_total = redis.call('INCRBY', total, delta)
if ARGV[5] ~= '' then redis.call('ZADD', expiry, ARGV[5], member) end
if ARGV[6] ~= '' then redis.call('ZADD', due, ARGV[6], member) end
return {1, now_total}
`;
