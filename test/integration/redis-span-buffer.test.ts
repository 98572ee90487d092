import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { appendWithinCap, traceBatch } from '../../src/queue/append-within-cap.js';
import { traceReadiness } from '../../src/queue/trace-readiness.js';
import { whenReady } from '../../src/redis/redis-connection.js';
import { RedisSpanBuffer } from '../../src/redis/redis-span-buffer.js';
import { childSpans } from '../helpers/child-spans.js';
import { traceId } from '../helpers/otlp-json-builder.js';
import { redisFor, testPrefix } from '../helpers/redis.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function buffer(maxSpansPerTrace?: number) {
  const prefix = testPrefix();
  const redis = redisFor(prefix);
  cleanups.push(redis.cleanup);
  await whenReady(redis.commands); // a fail-fast connection refuses commands until connected
  return {
    buffer: new RedisSpanBuffer(redis.commands, prefix, {
      unscoredTtlMs: 60_000,
      scoredTtlMs: 60_000,
      ...(maxSpansPerTrace !== undefined && { maxSpansPerTrace }),
    }),
    redis,
    prefix,
  };
}

/** A claim-by-age threshold that only a trace first seen 30 s ago or earlier passes. */
const young = () => Date.now() - 30_000;

const names = (spans: Array<{ name: string }>): string[] => spans.map(s => s.name).sort();

describe('RedisSpanBuffer claims, on a real Redis', () => {
  it('gives a trace to the first job that reads it, again to that job, and to one-trace reads', async () => {
    const { buffer: b } = await buffer();
    const spans = childSpans(60, ['root', 'x']);
    await b.append(new Map([[traceId(60), { spans, rootSeen: true }]]), Date.now(), false);

    const [first] = await b.readMany([traceId(60)], 'job-1', young());
    expect(first).toMatchObject({ held: true });
    expect(first!.claimedBy).toBeUndefined();
    expect(names(first!.spans)).toEqual(['root', 'x']);

    const [other] = await b.readMany([traceId(60)], 'job-2', young());
    expect(other).toMatchObject({ held: false, claimedBy: 'job-1', spans: [], stored: 0 });
    expect(other!.progress).toMatchObject({ rootEnded: true, scored: false });

    // The same job run again (BullMQ's stalled-job check, or a retry) still holds it.
    const [again] = await b.readMany([traceId(60)], 'job-1', young());
    expect(again).toMatchObject({ held: true });
    expect(again!.claimedBy).toBeUndefined();
    expect(names(again!.spans)).toEqual(['root', 'x']);

    // A trace handed over to a job of its own is read without a claim.
    expect(names((await b.read(traceId(60))).spans)).toEqual(['root', 'x']);
  });

  it('gives a trace read by two jobs at once to exactly one, and tells the other whose it is', async () => {
    const { buffer: b } = await buffer();
    for (let round = 0; round < 20; round++) {
      const id = traceId(200 + round);
      const spans = childSpans(200 + round, ['root', 'x']);
      await b.append(new Map([[id, { spans, rootSeen: true }]]), Date.now(), false);
      const [[a], [c]] = await Promise.all([
        b.readMany([id], 'job-a', young()),
        b.readMany([id], 'job-c', young()),
      ]);
      expect([a!.held, c!.held].filter(Boolean)).toHaveLength(1);
      const [winner, loser] = a!.held ? [a!, c!] : [c!, a!];
      expect(names(winner.spans)).toEqual(['root', 'x']);
      expect(loser).toMatchObject({ spans: [], claimedBy: a!.held ? 'job-a' : 'job-c' });
    }
  });

  it('leaves scored and unknown traces unclaimed, and creates no key for an unknown one', async () => {
    const { buffer: b, redis, prefix } = await buffer();
    const spans = childSpans(61, ['root']);
    await b.append(new Map([[traceId(61), { spans, rootSeen: true }]]), Date.now(), false);
    await b.markScored(traceId(61), await b.read(traceId(61)), Date.now(), false);

    const [scored, unknown] = await b.readMany([traceId(61), traceId(62)], 'job-3', Date.now());
    expect(scored).toMatchObject({ held: false, spans: [] });
    expect(scored!.claimedBy).toBeUndefined();
    expect(scored!.progress?.scored).toBe(true);
    expect(unknown).toMatchObject({ held: false, progress: undefined, spans: [] });
    expect(unknown!.claimedBy).toBeUndefined();
    expect(
      await redis.commands.hget(`${prefix}:trace:{${traceId(61)}}:buffer`, 'claim'),
    ).toBeNull();
    expect(await redis.commands.exists(`${prefix}:trace:{${traceId(62)}}:buffer`)).toBe(0);
  });

  it('reads many traces in order, each with its own spans', async () => {
    const { buffer: b } = await buffer();
    const batch = new Map([
      [traceId(63), { spans: childSpans(63, ['root', 'a']), rootSeen: true }],
      [traceId(64), { spans: childSpans(64, ['b']), rootSeen: false }],
    ]);
    await b.append(batch, Date.now(), false);
    const reads = await b.readMany([traceId(64), traceId(63)], 'job-4', Date.now());
    expect(reads.map(r => names(r.spans))).toEqual([['b'], ['a', 'root']]);
    expect(reads.map(r => r.progress?.rootEnded)).toEqual([false, true]);
  });

  it('leaves a rootless trace unclaimed until its max wait has passed, for the job that brings its root', async () => {
    const { buffer: b } = await buffer();
    const spans = childSpans(65, ['root', 'child']);
    const firstSeen = Date.now();
    await b.append(
      new Map([[traceId(65), { spans: spans.slice(1), rootSeen: false }]]),
      firstSeen,
      false,
    );

    const [early] = await b.readMany([traceId(65)], 'children-job', firstSeen - 1);
    expect(early).toMatchObject({ held: false, spans: [], stored: 0 });
    expect(early!.claimedBy).toBeUndefined();
    expect(early!.progress).toMatchObject({ rootEnded: false, firstSeenMs: firstSeen });

    await b.append(
      new Map([[traceId(65), { spans: spans.slice(0, 1), rootSeen: true }]]),
      firstSeen + 5,
      false,
    );
    const [rooted] = await b.readMany([traceId(65)], 'root-job', firstSeen - 1);
    expect(rooted).toMatchObject({ held: true });
    expect(names(rooted!.spans)).toEqual(['child', 'root']);
    const [late] = await b.readMany([traceId(65)], 'children-job', firstSeen + 60_000);
    expect(late).toMatchObject({ held: false, claimedBy: 'root-job', spans: [] });
  });

  it('claims exactly the traces that are rooted or past their max wait: never one that traceReadiness calls ready but is left unheld', async () => {
    const { buffer: b } = await buffer();
    let n = 100;
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.integer({ min: 0, max: 5000 }), // last − first
        // max wait, and now − first: anywhere, or within 2 ms of the max wait (the boundary)
        fc
          .integer({ min: 3, max: 10_000 })
          .chain(maxWait =>
            fc.tuple(
              fc.constant(maxWait),
              fc.oneof(
                fc.integer({ min: 0, max: 12_000 }),
                fc.integer({ min: maxWait - 2, max: maxWait + 2 }),
              ),
            ),
          ),
        fc.integer({ min: 1, max: 5000 }), // settle
        async (root, spread, [maxWaitMs, age], settleMs) => {
          const id = traceId(n++);
          const first = 1_700_000_000_000;
          const [a, r] = childSpans(n, ['a', 'root']);
          await b.append(new Map([[id, { spans: [a!], rootSeen: false }]]), first, false);
          await b.append(
            new Map([[id, { spans: root ? [r!] : [], rootSeen: root }]]),
            first + spread,
            false,
          );
          const now = first + age;
          const [read] = await b.readMany([id], `job-${n}`, now - maxWaitMs);
          expect(read!.held).toBe(root || age >= maxWaitMs);
          const readiness = traceReadiness(read!.progress!, now, { settleMs, maxWaitMs });
          if (readiness.ready) expect(read!.held).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('RedisSpanBuffer scoring marks and late spans, on a real Redis', () => {
  it('keeps the spans that arrived while a trace was scored, and only those', async () => {
    const { buffer: b } = await buffer();
    const [root, a, c] = childSpans(70, ['root', 'a', 'c']);
    const id = traceId(70);
    await b.append(new Map([[id, { spans: [root!, a!], rootSeen: true }]]), Date.now(), false);
    const read = await b.read(id);
    expect(read).toMatchObject({ stored: 1, appended: 2 });
    // A span arrives while the trace is being scored: it is not late yet.
    const during = await b.append(
      new Map([[id, { spans: [c!], rootSeen: false }]]),
      Date.now(),
      false,
    );
    expect(during.get(id)).toBeUndefined();
    expect(await b.markScored(id, read, Date.now(), false)).toBe(1);

    const after = await b.read(id);
    expect(after.progress?.scored).toBe(true);
    expect(names(after.spans)).toEqual(['c']);
    expect(after.appended).toBe(1);
  });

  it('counts late spans without storing them, and returns when the trace was scored', async () => {
    const { buffer: b, redis, prefix } = await buffer();
    const [root, late, ...rest] = childSpans(
      71,
      ['root', 'late'].concat(Array.from({ length: 20 }, (_, i) => `tool call ${i}`)),
    );
    const id = traceId(71);
    await b.append(new Map([[id, { spans: [root!, ...rest], rootSeen: true }]]), Date.now(), false);
    const key = `${prefix}:trace:{${id}}:buffer`;
    // Every field counted (SAMPLES 0): by default Redis sizes a hash from the first five fields
    // its iteration meets, an order set by the server's random hash seed, and this hash has six;
    // on a server whose seed left the batch out, both figures were the state's alone.
    const usage = async (): Promise<number> =>
      (await redis.commands.memory('USAGE', key, 'SAMPLES', 0))!;
    const bytesBuffered = await usage();
    await b.markScored(id, await b.read(id), 1_700_000_000_123, false);
    const bytesScored = await usage();

    const reply = await b.append(
      new Map([[id, { spans: [late!], rootSeen: false }]]),
      Date.now(),
      false,
    );
    expect(reply.get(id)).toBe('1700000000123');
    expect(await b.lateCount(id)).toBe(1);
    expect((await b.read(id)).spans).toEqual([]);
    // The scored batch was blanked: what is left is the trace's state.
    expect(bytesScored).toBeLessThan(bytesBuffered / 3);
  });

  it('reads a span id appended twice once: its first copy, where it was first seen', async () => {
    // As the memory driver keeps (trace-byte-buffer.test.ts).
    const { buffer: b } = await buffer();
    const [root, a, b2] = childSpans(73, ['root', 'a', 'b']);
    const id = traceId(73);
    await b.append(new Map([[id, { spans: [root!, a!, b2!], rootSeen: true }]]), Date.now(), false);
    const resent = { ...a!, name: 'a again' };
    await b.append(new Map([[id, { spans: [resent], rootSeen: false }]]), Date.now(), false);
    const read = await b.read(id);
    expect(read.spans.map(s => s.name)).toEqual(['root', 'a', 'b']);
    expect(read).toMatchObject({ stored: 2, appended: 4 });
  });

  it('keeps every span with keepSpans and rescoring on, and reads them all again', async () => {
    const { buffer: b } = await buffer();
    const [root, a, late] = childSpans(72, ['root', 'a', 'late']);
    const id = traceId(72);
    await b.append(new Map([[id, { spans: [root!, a!], rootSeen: true }]]), Date.now(), true);
    await b.markScored(id, await b.read(id), Date.now(), true);
    const reply = await b.append(
      new Map([[id, { spans: [late!], rootSeen: false }]]),
      Date.now(),
      true,
    );
    expect(reply.get(id)).toBeDefined();
    const again = await b.read(id);
    expect(names(again.spans)).toEqual(['a', 'late', 'root']);
    expect(again.progress?.scored).toBe(true);
    expect(await b.lateCount(id)).toBe(1);
  });

  it('refuses late spans past maxSpansPerTrace as it refuses any: no trace grows for good', async () => {
    // The sender of a scored trace kept appending to it: stored with no cap (200 batches of 50 to
    // a cap of 10 read back 10,010 spans, the TTL renewed by each), each queuing a rescore.
    const { buffer: b } = await buffer(3);
    const id = traceId(73);
    const [root, a, late, later] = childSpans(73, ['root', 'a', 'late', 'later']);
    await b.append(new Map([[id, { spans: [root!, a!], rootSeen: true }]]), Date.now(), true);
    await b.markScored(id, await b.read(id), Date.now(), true);
    const one = new Map([[id, { spans: [late!], rootSeen: false }]]);
    expect((await b.append(one, Date.now(), true)).get(id)).not.toBe('-'); // 3 of 3: kept
    const two = new Map([[id, { spans: [later!], rootSeen: false }]]);
    expect((await b.append(two, Date.now(), true)).get(id)).toBe('-');
    const again = await b.read(id);
    expect(names(again.spans)).toEqual(['a', 'late', 'root']);
    expect(again.dropped).toBe(1);
  });

  it('keeps a trace at maxSpansPerTrace exactly when two requests cross it at once', async () => {
    // Kept whole, the crossing batch took the trace to 16 spans of a cap of 10.
    const { buffer: b } = await buffer(10);
    const id = traceId(77);
    const spans = childSpans(
      77,
      Array.from({ length: 24 }, (_, i) => `s${i}`),
    );
    const batch = (from: number) => new Map([[id, traceBatch(spans.slice(from, from + 8))]]);
    const [one, two] = await Promise.all([
      appendWithinCap(b, batch(0), Date.now(), false),
      appendWithinCap(b, batch(8), Date.now(), false),
    ]);
    expect(one.refused + two.refused).toBe(6);
    const read = await b.read(id);
    expect(read.spans).toHaveLength(10);
    expect(read.dropped).toBe(6);
    // Full now: the next batch is refused whole, and counted.
    expect(await appendWithinCap(b, batch(16), Date.now(), false)).toMatchObject({ refused: 8 });
    expect((await b.read(id)).dropped).toBe(14);
    expect((await b.read(id)).spans).toHaveLength(10);
  });

  it('counts in dropped what a race at maxSpansPerTrace past its last cut round refuses', async () => {
    // Before each of a request's appends another request takes 2 more spans of the trace, so
    // every round finds less room: after 8 cuts the request's 30 spans were refused to the
    // sender but not counted in the trace's `dropped` (0).
    const { buffer: b, redis, prefix } = await buffer(100);
    const id = traceId(79);
    const spans = childSpans(
      79,
      Array.from({ length: 130 }, (_, i) => `s${i}`),
    );
    const other = new RedisSpanBuffer(redis.commands, prefix, {
      unscoredTtlMs: 60_000,
      scoredTtlMs: 60_000,
      maxSpansPerTrace: 100,
    });
    await other.append(new Map([[id, traceBatch(spans.slice(0, 78))]]), Date.now(), false);
    let next = 78;
    const racing = Object.create(b) as RedisSpanBuffer;
    racing.append = async (...args) => {
      await other.append(
        new Map([[id, traceBatch(spans.slice(next, next + 2))]]),
        Date.now(),
        false,
      );
      next += 2;
      return b.append(...args);
    };
    const request = new Map([[id, traceBatch(spans.slice(100, 130))]]);
    const { refused, late } = await appendWithinCap(racing, request, Date.now(), false);
    expect(refused).toBe(30);
    expect(late.get(id)).toBe('-');
    const read = await b.read(id);
    expect(read.dropped).toBe(30);
    // The other request's spans only: 78 + 2 before each of the 10 appends.
    expect(read.spans).toHaveLength(98);
  });

  it('knows a request that crossed maxSpansPerTrace when it comes again, and counts it once', async () => {
    // An exporter's retry after the receiver answered 503 (its job not queued) or lost the answer:
    // the whole batch's digest was not kept, so the copy was refused whole, its 12 spans counted
    // as dropped again, and no job was queued for the trace.
    const { buffer: b } = await buffer(10);
    const id = traceId(78);
    const spans = childSpans(
      78,
      Array.from({ length: 12 }, (_, i) => `s${i}`),
    );
    const request = () => new Map([[id, traceBatch(spans)]]);
    expect(await appendWithinCap(b, request(), Date.now(), false)).toMatchObject({ refused: 2 });
    const again = await appendWithinCap(b, request(), Date.now(), false);
    expect(again.refused).toBe(0);
    expect(again.late.get(id)).toBeUndefined(); // queued as any accepted trace
    const read = await b.read(id);
    expect(read.spans).toHaveLength(10);
    expect(read.dropped).toBe(2);
    // A batch refused whole at the cap is known again too: counted once.
    const past = new Map([[id, traceBatch(childSpans(78, ['x', 'y']))]]);
    expect(await appendWithinCap(b, past, Date.now(), false)).toMatchObject({ refused: 2 });
    expect(await appendWithinCap(b, past, Date.now(), false)).toMatchObject({ refused: 0 });
    expect((await b.read(id)).dropped).toBe(4);
  });

  it('keeps and counts a batch sent again once: its copies take no room under maxSpansPerTrace', async () => {
    const { buffer: b } = await buffer(3);
    const id = traceId(76);
    const [root, a, c] = childSpans(76, ['root', 'a', 'c']);
    const sent = new Map([[id, { spans: [a!, c!], rootSeen: false }]]);
    // An exporter's retry of a request accepted: the same batch, three times.
    for (let i = 0; i < 3; i++)
      expect((await b.append(sent, Date.now(), false)).get(id)).toBe(undefined);
    expect(
      (await b.append(new Map([[id, { spans: [root!], rootSeen: true }]]), Date.now(), false)).get(
        id,
      ),
    ).toBe(undefined);
    const read = await b.read(id);
    expect(read).toMatchObject({ stored: 2, appended: 3, dropped: 0 });
    expect(names(read.spans)).toEqual(['a', 'c', 'root']);
    expect(read.progress?.rootEnded).toBe(true);
  });

  it('keeps the digests of the last 64 batches of a trace only: an append costs the same bytes however many came before', async () => {
    const { buffer: b, redis, prefix } = await buffer(10_000);
    const id = traceId(77);
    const spans = childSpans(
      77,
      Array.from({ length: 200 }, (_, i) => `s${i}`),
    );
    // One span a request, as a SimpleSpanProcessor sends them.
    for (const span of spans)
      await b.append(new Map([[id, { spans: [span], rootSeen: false }]]), Date.now(), false);
    const digests = await redis.commands.hget(`${prefix}:trace:{${id}}:buffer`, 'd');
    // 64 digests of 16 hex digits, each after a space; 200 would be 3,400 bytes.
    expect(digests).toHaveLength(64 * 17);
    // The latest batch sent again is still known, and takes no room.
    await b.append(new Map([[id, { spans: [spans[199]!], rootSeen: false }]]), Date.now(), false);
    expect(await b.read(id)).toMatchObject({ stored: 200, appended: 200 });
  });

  it('reads hundreds of batches in arrival order, the first copy of a span kept', async () => {
    const { buffer: b } = await buffer();
    const id = traceId(73);
    const spans = childSpans(
      73,
      Array.from({ length: 300 }, (_, i) => `s${i}`),
    );
    // One request per span: 300 batches, more than Redis keeps in a compact, ordered hash.
    for (const span of spans)
      await b.append(new Map([[id, { spans: [span], rootSeen: false }]]), Date.now(), false);
    const again = { ...spans[7]!, name: 'resent' };
    await b.append(new Map([[id, { spans: [again], rootSeen: false }]]), Date.now(), false);
    const read = await b.read(id);
    expect(read).toMatchObject({ stored: 301, appended: 301 });
    expect(read.spans).toHaveLength(300);
    expect(read.spans.map(s => s.name)).toEqual(spans.map(s => s.name));
  });

  it('sets the TTL on a trace’s first span only; scoring with keepSpans renews it', async () => {
    const { buffer: b, redis, prefix } = await buffer();
    const id = traceId(74);
    const key = `${prefix}:trace:{${id}}:buffer`;
    const [root, a] = childSpans(74, ['root', 'a']);
    await b.append(new Map([[id, { spans: [a!], rootSeen: false }]]), Date.now(), true);
    expect(await redis.commands.pttl(key)).toBeGreaterThan(50_000);
    await redis.commands.pexpire(key, 5_000);
    await b.append(new Map([[id, { spans: [root!], rootSeen: true }]]), Date.now(), true);
    expect(await redis.commands.pttl(key)).toBeLessThanOrEqual(5_000);
    await b.markScored(id, await b.read(id), Date.now(), true);
    expect(await redis.commands.pttl(key)).toBeGreaterThan(50_000);
  });
});
