/**
 * Marks a part of a session that a turn would have opened and admission refused (the bytes all
 * sessions hold were at `sessions.maxBytes`): the part is written closed, with no turns (`n` 0,
 * `cut` `max_bytes`, `done`), so that the session's next turn opens the part after it, which
 * says what it continues, and never a part that passes for the whole conversation without the
 * refused turn. Nothing is written when the part was opened (or the session moved on) since the
 * turn asked for admission: the caller adds the turn again.
 *
 * KEYS: the session's part-1 hash (see `session-keys.ts`). ARGV: the part, now (ms), a part's
 * life (ms), the turn's test case id ('' for none; kept on part 1, `tc`, as `add-session-trace`
 * keeps it), the cut of the part before it (for part n \> 1), the refused turn's trace id. The
 * turn is written on part 1's hash (`r:<trace id>`: the part and that cut), so that adding it
 * again (a retried trace job) finds it refused as this part (`add-session-trace`), never added to
 * a later one; and how long the session's latest part number is kept (ms; `<KEYS[1]>:seen`, as
 * `add-session-trace` keeps it, led by `00`: cut `max_bytes`): a part n \> 1 of a session whose
 * keys are all gone follows that number and continues that cut. Returns 1 when marked, else 0.
 */
export const REFUSE_SESSION_PART = `
local base, p = KEYS[1], tonumber(ARGV[1])
local life = tonumber(ARGV[3])
local h = redis.call('HMGET', base, 'first', 'part')
if p == 1 then
  if h[1] or h[2] then return 0 end
elseif h[1] or h[2] then
  if tonumber(h[2] or '1') ~= p - 1 then return 0 end
elseif tonumber(redis.call('GET', base .. ':seen') or '0') ~= p - 1 then return 0 end
local key = base
if p > 1 then key = base .. ':' .. p end
if redis.call('EXISTS', key) == 1 then return 0 end
redis.call('HSET', key, 'first', ARGV[2], 'last', ARGV[2], 'n', 0, 'bytes', 0, 'order', '', 'cut', 'max_bytes', 'done', 1)
if p == 1 and ARGV[4] ~= '' then redis.call('HSET', key, 'tc', ARGV[4]) end
redis.call('PEXPIRE', key, life)
redis.call('HSET', base, 'r:' .. ARGV[6], p .. ' ' .. ARGV[5])
redis.call('SET', base .. ':seen', '00' .. p, 'PX', ARGV[7])
if p > 1 then
  redis.call('HSET', key, 'cont', ARGV[5])
  redis.call('HSET', base, 'part', p)
  if redis.call('PTTL', base) < life then redis.call('PEXPIRE', base, life) end
end
return 1
`;
