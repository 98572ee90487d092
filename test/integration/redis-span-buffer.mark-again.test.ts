import { afterEach, describe, expect, it } from 'vitest';
import { whenReady } from '../../src/redis/redis-connection.js';
import { RedisSpanBuffer } from '../../src/redis/redis-span-buffer.js';
import { childSpans } from '../helpers/child-spans.js';
import { traceId } from '../helpers/otlp-json-builder.js';
import { redisFor, testPrefix } from '../helpers/redis.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function buffer() {
  const prefix = testPrefix();
  const redis = redisFor(prefix);
  cleanups.push(redis.cleanup);
  await whenReady(redis.commands);
  const b = new RedisSpanBuffer(redis.commands, prefix, {
    unscoredTtlMs: 60_000,
    scoredTtlMs: 60_000,
  });
  return { b, redis, prefix };
}

/** A trace of `root` and `a` read for scoring, and `c` appended while it was being scored. */
async function readThenRacing(b: RedisSpanBuffer, n: number, keep: boolean) {
  const [root, a, c, d] = childSpans(n, ['root', 'a', 'c', 'd']);
  const id = traceId(n);
  await b.append(new Map([[id, { spans: [root!, a!], rootSeen: true }]]), Date.now(), keep);
  const read = await b.read(id);
  await b.append(new Map([[id, { spans: [c!], rootSeen: false }]]), Date.now(), keep);
  const late = () => b.append(new Map([[id, { spans: [d!], rootSeen: false }]]), Date.now(), keep);
  return { id, read, late };
}

describe('RedisSpanBuffer.markScored retried after a try that timed out but ran (Redis paused)', () => {
  it('without keeping spans: the retry returns what the first try counted, and counts nothing again', async () => {
    const { b } = await buffer();
    const { id, read, late } = await readThenRacing(b, 90, false);
    const at = 1_700_000_000_123;
    expect(await b.markScored(id, read, at, false)).toBe(1); // the first try: its reply was lost
    await late(); // after the mark: late, not stored
    expect(await b.markScored(id, read, at, false, true)).toBe(1);
    expect(await b.markScored(id, read, at, false, true)).toBe(1);
    const after = await b.read(id);
    expect(after).toMatchObject({ appended: 1, progress: { scored: true } });
    expect(after.spans.map(s => s.name)).toEqual(['c']);
    expect(await b.lateCount(id)).toBe(1);
  });

  it('without keeping spans: a retry whose first try never ran marks the trace', async () => {
    const { b } = await buffer();
    const { id, read } = await readThenRacing(b, 91, false);
    expect(await b.markScored(id, read, 1_700_000_000_123, false, true)).toBe(1);
    const after = await b.read(id);
    expect(after).toMatchObject({ appended: 1, progress: { scored: true } });
    expect(after.spans.map(s => s.name)).toEqual(['c']);
  });

  it('keeping spans: the script run twice gives the same count, and a span appended in between', async () => {
    const { b } = await buffer();
    const { id, read, late } = await readThenRacing(b, 92, true);
    const at = 1_700_000_000_123;
    expect(await b.markScored(id, read, at, true)).toBe(1);
    expect(await b.markScored(id, read, at, true, true)).toBe(1);
    await late(); // kept to rescore with, counted late once, by its append
    expect(await b.markScored(id, read, at, true, true)).toBe(2);
    expect(await b.lateCount(id)).toBe(1);
    expect((await b.read(id)).spans.map(s => s.name).sort()).toEqual(['a', 'c', 'd', 'root']);
  });
});
