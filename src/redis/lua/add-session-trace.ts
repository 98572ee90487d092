/**
 * KEYS: the session's hash (`first`: when its first trace came, ms; `t:<trace id>`: each trace's
 * spans, one span batch). ARGV: the trace's field, its spans, now (ms), traces kept at most, the
 * session's life (ms), '1' when the trace may open the session (it is tagged with a session test
 * case). Adds or replaces the trace unless the session already holds the most traces it may, or
 * does not exist and the trace may not open it; the hash expires its life after its first trace.
 * Returns `{added (1; -1 when full; 0 when there is no session to join), traces held, first ms}`.
 * A trace with no session to join and none to open (untagged traffic) costs one `HGET`.
 */
export const ADD_SESSION_TRACE = `
local first = redis.call('HGET', KEYS[1], 'first')
if not first and ARGV[6] ~= '1' then return {0, 0, 0} end
local n = 1
if first then
  n = redis.call('HLEN', KEYS[1])
else
  first = ARGV[3]
  redis.call('HSET', KEYS[1], 'first', first)
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
end
local traces = n - 1
local new = redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0
if new and traces >= tonumber(ARGV[4]) then return {-1, traces, tonumber(first)} end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if new then traces = traces + 1 end
return {1, traces, tonumber(first)}
`;
