import type { RedisClient } from '../../src/redis/redis-connection.js';
import type { SpanDigest } from '../../src/ingest/span-digest.js';
import { encodeSpanBatch } from '../../src/redis/span-batch-codec.js';

/**
 * The previous release's script adding a trace to its session (`src/redis/lua/add-session-trace.ts`
 * before sessions had parts), verbatim: one hash `<prefix>:session:{<id>}` with `first` and
 * `t:<trace id>` fields, expiring `maxAgeMs` after its first trace. Tests write sessions with it as
 * a worker of that release would, to check that this release reads and scores them.
 */
const PREVIOUS_ADD_SESSION_TRACE = `
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

/** Adds a trace to a session as the previous release did; resolves with its reply. */
export async function addAsPreviousRelease(
  redis: RedisClient,
  prefix: string,
  session: { id: string; traceId: string; spans: readonly SpanDigest[]; nowMs: number },
  limits = { maxTraces: 50, maxAgeMs: 86_400_000 },
): Promise<number[]> {
  return (await redis.eval(
    PREVIOUS_ADD_SESSION_TRACE,
    1,
    `${prefix}:session:{${session.id}}`,
    `t:${session.traceId}`,
    encodeSpanBatch(session.spans),
    String(session.nowMs),
    String(limits.maxTraces),
    String(limits.maxAgeMs),
    '1',
  )) as number[];
}
