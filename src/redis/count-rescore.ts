import type { RedisClient } from './redis-connection.js';
import { bufferKeyOf } from './redis-span-buffer.js';

// KEYS: the trace's buffer hash. ARGV: 1 to count one more rescore, 0 to read the count; the
// rescore's span count. Returns the count (field `rs`): counted only when the span count is past
// the one of the last rescore counted (field `rsn`), so that a retried try of the same rescore
// (same spans) reads its count again. 0, and nothing written, when the hash is gone (an HINCRBY
// would make it again, without a TTL).
const COUNT_RESCORE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[1] == '1' and tonumber(ARGV[2]) > tonumber(redis.call('HGET', KEYS[1], 'rsn') or '-1') then
  redis.call('HSET', KEYS[1], 'rsn', ARGV[2])
  return redis.call('HINCRBY', KEYS[1], 'rs', 1)
end
return tonumber(redis.call('HGET', KEYS[1], 'rs') or '0')
`;

/**
 * Counts one more rescore (late spans) of a scored trace in its buffer hash (`RedisSpanBuffer`),
 * so under the trace's TTL, and returns how many it has had, this one included; with `count`
 * false, only reads that. Idempotent per rescore: `spans`, the span count it scores, is kept with
 * the count, and a rescore of no more spans than the last one counted (a retried try of it, after
 * a failure or a stalled worker) is not counted again. Every rescore has more spans than the one
 * before (late spans made it), but at `maxSpansPerTrace`, where a rescore of no more spans is the
 * same prompt (its judge job id, `<traceId>-llm-<spans>`, is the same job too). 0 when the hash
 * is gone. One script call (EVAL: the rescore path only, never a trace's first scoring; see
 * `MAX_JUDGE_PASSES_PER_TRACE`).
 */
export async function countRescore(
  redis: RedisClient,
  prefix: string,
  traceId: string,
  spans: number,
  count = true,
): Promise<number> {
  const key = bufferKeyOf(prefix, traceId);
  return Number(await redis.eval(COUNT_RESCORE, 1, key, count ? '1' : '0', String(spans)));
}
