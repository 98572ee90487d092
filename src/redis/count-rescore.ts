import type { RedisClient } from './redis-connection.js';
import { bufferKeyOf } from './redis-span-buffer.js';

// KEYS: the trace's buffer hash. ARGV: 1 to count one more rescore, 0 to read the count. Returns
// the count (field `rs`); 0, and nothing written, when the hash is gone (an HINCRBY would make it
// again, without a TTL).
const COUNT_RESCORE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
return redis.call('HINCRBY', KEYS[1], 'rs', ARGV[1])
`;

/**
 * Counts one more rescore (late spans) of a scored trace in its buffer hash (`RedisSpanBuffer`),
 * so under the trace's TTL, and returns how many it has had, this one included; with `count`
 * false, only reads that. 0 when the hash is gone. One script call (EVAL: the rescore path only,
 * never a trace's first scoring; see `MAX_JUDGE_PASSES_PER_TRACE`).
 */
export async function countRescore(
  redis: RedisClient,
  prefix: string,
  traceId: string,
  count = true,
): Promise<number> {
  const key = bufferKeyOf(prefix, traceId);
  return Number(await redis.eval(COUNT_RESCORE, 1, key, count ? '1' : '0'));
}
