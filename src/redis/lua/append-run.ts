/**
 * KEYS: the run key. ARGV: export line ('' keeps the one there), record JSON, ttl ms, then one
 * JSON line per result. The judge pass's write: it keeps the results already there.
 */
export const APPEND_RUN = `
local old = redis.call('GET', KEYS[1])
local exportLine, tail = 'E', ''
if old then
  local a = string.find(old, '\\n', 1, true)
  if string.sub(old, 1, 1) == 'E' and a then
    exportLine = string.sub(old, 1, a - 1)
    local b = string.find(old, '\\n', a + 1, true)
    if b then tail = string.sub(old, b) end
  elseif a then
    tail = string.sub(old, a)
  end
end
if ARGV[1] ~= '' then exportLine = ARGV[1] end
for i = 4, #ARGV do tail = tail .. '\\n' .. ARGV[i] end
redis.call('SET', KEYS[1], exportLine .. '\\n' .. ARGV[2] .. tail, 'PX', ARGV[3])
return 1
`;
