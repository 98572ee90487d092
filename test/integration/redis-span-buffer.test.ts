import { afterEach, describe, expect, it } from 'vitest';
import { whenReady } from '../../src/queue/redis-connection.js';
import { RedisSpanBuffer } from '../../src/queue/redis-span-buffer.js';
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
  await whenReady(redis.commands); // a fail-fast connection refuses commands until connected
  return { buffer: new RedisSpanBuffer(redis.commands, prefix, 60_000), redis, prefix };
}

const names = (spans: Array<{ name: string }>): string[] => spans.map(s => s.name).sort();

describe('RedisSpanBuffer claims, on a real Redis', () => {
  it('gives a trace to the first job that reads it, again to that job, and to one-trace reads', async () => {
    const { buffer: b } = await buffer();
    const spans = childSpans(60, ['root', 'x']);
    await b.append(new Map([[traceId(60), { spans, rootSeen: true }]]), Date.now(), false);

    const [first] = await b.readMany([traceId(60)], 'job-1');
    expect(first!.claimedBy).toBeUndefined();
    expect(names(first!.spans)).toEqual(['root', 'x']);

    const [other] = await b.readMany([traceId(60)], 'job-2');
    expect(other).toMatchObject({ claimedBy: 'job-1', spans: [], stored: 0 });
    expect(other!.progress).toMatchObject({ rootEnded: true, scored: false });

    // The same job run again (BullMQ's stalled-job check, or a retry) still holds it.
    const [again] = await b.readMany([traceId(60)], 'job-1');
    expect(again!.claimedBy).toBeUndefined();
    expect(names(again!.spans)).toEqual(['root', 'x']);

    // A trace handed over to a job of its own is read without a claim.
    expect(names((await b.read(traceId(60))).spans)).toEqual(['root', 'x']);
  });

  it('leaves scored and unknown traces unclaimed, and creates no key for an unknown one', async () => {
    const { buffer: b, redis, prefix } = await buffer();
    const spans = childSpans(61, ['root']);
    await b.append(new Map([[traceId(61), { spans, rootSeen: true }]]), Date.now(), false);
    await b.markScored(traceId(61), await b.read(traceId(61)), Date.now(), false);

    const [scored, unknown] = await b.readMany([traceId(61), traceId(62)], 'job-3');
    expect(scored).toMatchObject({ claimedBy: '', spans: [] });
    expect(scored!.progress?.scored).toBe(true);
    expect(unknown).toMatchObject({ claimedBy: '', progress: undefined, spans: [] });
    expect(await redis.commands.hget(`${prefix}:trace:{${traceId(61)}}:meta`, 'claim')).toBeNull();
    expect(await redis.commands.exists(`${prefix}:trace:{${traceId(62)}}:meta`)).toBe(0);
  });

  it('reads many traces in order, each with its own spans', async () => {
    const { buffer: b } = await buffer();
    const batch = new Map([
      [traceId(63), { spans: childSpans(63, ['root', 'a']), rootSeen: true }],
      [traceId(64), { spans: childSpans(64, ['b']), rootSeen: false }],
    ]);
    await b.append(batch, Date.now(), false);
    const reads = await b.readMany([traceId(64), traceId(63)], 'job-4');
    expect(reads.map(r => names(r.spans))).toEqual([['b'], ['a', 'root']]);
    expect(reads.map(r => r.progress?.rootEnded)).toEqual([false, true]);
  });
});
