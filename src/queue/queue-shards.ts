import { generateMulti } from 'cluster-key-slot';

/** A key's Redis Cluster hash slot (by its hash tag when it has one). */
const slotOf = (key: string): number => generateMulti([key]);

/** The BullMQ queue of trace jobs (shard 0's name; shard i's is `score-trace-i`; see `TraceJobData`). */
export const SCORE_TRACE_QUEUE = 'score-trace';

/** The BullMQ queue of LLM-judged scoring, one job per trace scoring generation. */
export const JUDGE_QUEUE = 'judge';

/** The BullMQ queue of sessions to score, one job per session at a time. */
export const SESSION_QUEUE = 'score-session';

/** Where one BullMQ queue's keys live: `<prefix>:<name>:…`. */
export interface QueueLocation {
  /** BullMQ's `prefix` option. On a cluster it ends in the queue's hash tag. */
  prefix: string;
  name: string;
}

/** Redis Cluster hash slots. */
const SLOTS = 16384;

/**
 * The trace queue's shards. On one Redis: `<prefix>:score-trace` as always, then
 * `<prefix>:score-trace-1` … for more shards. On a cluster every shard's keys share one hash tag
 * (BullMQ runs multi-key scripts) and shard `i`'s tag is chosen so its slot falls in the `i`-th of
 * `count` equal slot ranges: `redis-cli --cluster create` gives M masters M equal ranges, so
 * M shards land on M different masters rather than wherever their names happen to hash.
 */
export function traceQueueShards(prefix: string, count: number, cluster: boolean): QueueLocation[] {
  return Array.from({ length: count }, (_, i) => ({
    prefix: cluster ? `${prefix}:{${slotTag(`t${i}`, i, count)}}` : prefix,
    name: i === 0 ? SCORE_TRACE_QUEUE : `${SCORE_TRACE_QUEUE}-${i}`,
  }));
}

/** The judge queue: one queue, under its own hash tag on a cluster. */
export function judgeQueueLocation(prefix: string, cluster: boolean): QueueLocation {
  return { prefix: cluster ? `${prefix}:{j}` : prefix, name: JUDGE_QUEUE };
}

/** The session queue: one queue, under its own hash tag on a cluster. */
export function sessionQueueLocation(prefix: string, cluster: boolean): QueueLocation {
  return { prefix: cluster ? `${prefix}:{s}` : prefix, name: SESSION_QUEUE };
}

/** The shard a trace goes to: its id's CRC16 (Redis's key hash), modulo the shard count. */
export function shardOfTrace(traceId: string, count: number): number {
  return count === 1 ? 0 : slotOf(traceId) % count;
}

/**
 * The first of `base`, `base.1`, `base.2`, … whose slot lies in range `i` of `count`. CRC16 spreads
 * such names evenly, so a range of 16384 / count slots is found within about `count` tries.
 */
function slotTag(base: string, i: number, count: number): string {
  // Rounded as redis-cli rounds when it splits the slots over masters.
  const from = Math.round((i * SLOTS) / count);
  const to = Math.round(((i + 1) * SLOTS) / count);
  for (let k = 0; ; k++) {
    const tag = k === 0 ? base : `${base}.${k}`;
    const slot = slotOf(tag);
    if (slot >= from && slot < to) return tag;
  }
}
