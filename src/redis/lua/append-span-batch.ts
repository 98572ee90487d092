/**
 * KEYS: the trace's hash. ARGV: now ms, what the batch holds (`0`, or `1` for the root, then `w`
 * for a logs-writing model span or `l` for a log record), unscored ttl ms, keep late spans (0/1),
 * span count, the batch (one encodeSpanBatch buffer), scored ttl ms, spans kept per trace, the
 * batch's digest (`batchDigest`), spans of the trace the request held past this batch (cut off
 * by an earlier '+' answer, counted in `dropped` with it), and the digest of the request's whole
 * batch when this one is its cut ('' otherwise), kept beside this batch's so that the request
 * sent again is known as a copy, and `1` to refuse the batch as if the trace were full (the last
 * round of a race at the cap, see appendWithinCap; else `0`). Returns the scored-at time when the
 * trace was already scored (the spans are late); '-' when the trace already holds its most
 * spans, late spans kept to rescore with included (the batch is not kept, its spans counted in
 * `dropped`); '+N' when the batch would take the trace past its most spans, N of them still
 * fitting (nothing is kept: the caller appends the batch's first N, as the memory driver keeps a
 * trace's first spans up to the cap exactly); else ''.
 * A batch appended before (`d` holds each batch's digest after a space: an exporter retrying a
 * request the receiver had accepted sends it again) is not kept again, and its spans are not
 * counted again (`n`, the cap, nor `dropped`: a batch refused whole is noted too): the memory
 * driver counts a span id once too. Only its arrival is. A span id sent again in a different
 * batch is counted again, in `n` and `dropped` (see `BufferTtls.maxSpansPerTrace`).
 * `d` keeps the last 64 digests (1,088 bytes), so a trace sent one span a request costs the same
 * few bytes an append, not its whole history (10,000 one-span requests would have copied and
 * scanned 850 MB in Redis's one thread); a retry past 64 later batches of its trace counts again.
 */
export const APPEND_SPAN_BATCH = `
local m = redis.call('HMGET', KEYS[1], 'scored', 'n', 'k', 'first', 'd')
if m[1] and ARGV[4] ~= '1' then
  redis.call('HINCRBY', KEYS[1], 'late', ARGV[5])
  return m[1]
end
local digests, mark = m[5] or '', ' ' .. ARGV[9]
if string.find(digests, mark, 1, true) then
  redis.call('HSET', KEYS[1], 'last', ARGV[1])
  return m[1] or ''
end
if ARGV[11] ~= '' then mark = mark .. ' ' .. ARGV[11] end
local n, cap, count = tonumber(m[2] or '0'), tonumber(ARGV[8]), tonumber(ARGV[5])
if n >= cap or ARGV[12] == '1' then
  redis.call('HINCRBY', KEYS[1], 'dropped', count + tonumber(ARGV[10]))
  redis.call('HSET', KEYS[1], 'd', string.sub(digests .. mark, -1088))
  return '-'
end
if n + count > cap then return '+' .. (cap - n) end
if ARGV[10] ~= '0' then redis.call('HINCRBY', KEYS[1], 'dropped', ARGV[10]) end
if m[1] then redis.call('HINCRBY', KEYS[1], 'late', ARGV[5]) end
local k = tonumber(m[3] or '0')
local set = { 'b' .. k, ARGV[6], 'k', k + 1, 'n', n + count, 'last', ARGV[1], 'd', string.sub(digests .. mark, -1088) }
if not m[4] or m[4] == '' then set[#set + 1] = 'first'; set[#set + 1] = ARGV[1] end
if string.find(ARGV[2], '1', 1, true) then set[#set + 1] = 'root'; set[#set + 1] = '1' end
if string.find(ARGV[2], 'l', 1, true) then set[#set + 1] = 'lr'; set[#set + 1] = '1'
elseif string.find(ARGV[2], 'w', 1, true) then set[#set + 1] = 'lw'; set[#set + 1] = '1' end
redis.call('HSET', KEYS[1], unpack(set))
if m[1] then redis.call('PEXPIRE', KEYS[1], ARGV[7])
elseif not m[3] then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
if m[1] then return m[1] end
return ''
`;
