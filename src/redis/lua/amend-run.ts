/**
 * Rewrites a run record's line in place, only if it is still the line the caller read and
 * amended: one step, so that a pass written meanwhile (by this process or another) is never
 * overwritten with an amendment of the record before it.
 *
 * KEYS: the run key. ARGV: the SHA-1 (hex) of the record line the amendment was made from, the
 * amended record line, ttl ms. The record line is the value's second line (the first of a value
 * of the layout before the export line, which is then given the empty export line `E`, as
 * `append-run` does); the export line and the result lines after the record stay as they are.
 *
 * Returns 1 when written; the value as it is now when its record line is not the one read (the
 * caller amends that and tries again); nil when there is no record.
 */
export const AMEND_RUN = `
local old = redis.call('GET', KEYS[1])
if not old then return nil end
local exportLine, record, tail = 'E', old, ''
local a = string.find(old, '\\n', 1, true)
if string.sub(old, 1, 1) == 'E' and a then
  exportLine = string.sub(old, 1, a - 1)
  record = string.sub(old, a + 1)
  local b = string.find(old, '\\n', a + 1, true)
  if b then
    record = string.sub(old, a + 1, b - 1)
    tail = string.sub(old, b)
  end
elseif a then
  record = string.sub(old, 1, a - 1)
  tail = string.sub(old, a)
end
if redis.sha1hex(record) ~= ARGV[1] then return old end
redis.call('SET', KEYS[1], exportLine .. '\\n' .. ARGV[2] .. tail, 'PX', ARGV[3])
return 1
`;
