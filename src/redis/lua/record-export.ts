/**
 * KEYS: the run key. ARGV: state, now ms, last error (a JSON string), attempts to add.
 * An export outcome that came after its run was written (most are folded into that write): the
 * export line is rewritten in place, the TTL kept. A run whose key is gone is left so.
 */
export const RECORD_EXPORT = `
local old = redis.call('GET', KEYS[1])
if not old or string.sub(old, 1, 1) ~= 'E' then return 0 end
local a = string.find(old, '\\n', 1, true)
if not a then return 0 end
local attempts = tonumber(string.match(string.sub(old, 1, a - 1), '^E[^\\t]*\\t(%d+)\\t') or '0')
local line = 'E' .. ARGV[1] .. '\\t' .. (attempts + tonumber(ARGV[4])) .. '\\t' .. ARGV[2] .. '\\t' .. ARGV[3]
redis.call('SET', KEYS[1], line .. string.sub(old, a), 'KEEPTTL')
return 1
`;
