import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { SpanscoreError } from '../errors/spanscore-error.js';
import { SharedRefusal } from './shared-refusal.js';

const saturated = (message = 'the span buffer holds 12 of at most 12 spans'): SpanscoreError =>
  new SpanscoreError('SS_INGEST_SATURATED', message, { retryAfterSeconds: 1 });

describe('SharedRefusal', () => {
  it('reads what was published last: none, a refusal with its code, message and Retry-After, none again', () => {
    const buffer = SharedRefusal.buffer();
    const writer = new SharedRefusal(buffer);
    const reader = new SharedRefusal(buffer);
    expect(reader.read()).toBeUndefined();

    expect(writer.publish(saturated())).toBe(true);
    const read = reader.read();
    expect(read).toBeInstanceOf(SpanscoreError);
    expect(read).toMatchObject({
      code: 'SS_INGEST_SATURATED',
      message: 'the span buffer holds 12 of at most 12 spans',
      retryAfterSeconds: 1,
    });

    const closing = new SpanscoreError('SS_INGEST_UNAVAILABLE', 'the receiver is shutting down', {
      retryAfterSeconds: 5,
    });
    expect(writer.publish(closing)).toBe(true);
    expect(reader.read()).toMatchObject({
      code: 'SS_INGEST_UNAVAILABLE',
      message: 'the receiver is shutting down',
      retryAfterSeconds: 5,
    });

    expect(writer.publish(undefined)).toBe(false);
    expect(reader.read()).toBeUndefined();
  });

  it('writes nothing for a refusal like the last one: a reader keeps the refusal it read', () => {
    const buffer = SharedRefusal.buffer();
    const writer = new SharedRefusal(buffer);
    const reader = new SharedRefusal(buffer);
    writer.publish(saturated());
    const first = reader.read();
    // A new error object with the same code, message and Retry-After, as `refusesNow` makes.
    expect(writer.publish(saturated())).toBe(true);
    expect(reader.read()).toBe(first);
    writer.publish(saturated('the span buffer holds 13 of at most 12 spans'));
    expect(reader.read()).not.toBe(first);
    expect(reader.read()?.message).toBe('the span buffer holds 13 of at most 12 spans');
  });

  it('publishes any other refusal as none: the sink decides it when the request comes', () => {
    const buffer = SharedRefusal.buffer();
    const writer = new SharedRefusal(buffer);
    writer.publish(saturated());
    expect(
      writer.publish(new SpanscoreError('SS_REDIS_FAILED', 'no', { retryAfterSeconds: 1 })),
    ).toBe(false);
    expect(new SharedRefusal(buffer).read()).toBeUndefined();
  });

  it('cuts a long message at 512 bytes, between characters', () => {
    const buffer = SharedRefusal.buffer();
    // 3 bytes a character: 512 is not a multiple of 3.
    const long = 'é€'.repeat(400);
    new SharedRefusal(buffer).publish(saturated(long));
    const message = new SharedRefusal(buffer).read()!.message;
    expect(Buffer.byteLength(message)).toBeLessThanOrEqual(512);
    expect(Buffer.byteLength(message)).toBeGreaterThan(505);
    expect(long.startsWith(message)).toBe(true);
    expect(message).not.toContain('\uFFFD');
  });

  it('tells a write under way after its sequence number wrapped past 2^31 (negative, odd)', () => {
    const buffer = SharedRefusal.buffer();
    // Word 0 is the sequence number (see shared-refusal.ts): 2^31 - 2 writes made already.
    const sequence = new Int32Array(buffer, 0, 1);
    sequence[0] = 2 ** 31 - 2;
    const writer = new SharedRefusal(buffer);
    writer.publish(saturated());
    expect(sequence[0]).toBe(-(2 ** 31));
    expect(new SharedRefusal(buffer).read()?.code).toBe('SS_INGEST_SATURATED');
    // A writer half-way through its next write: odd and negative.
    Atomics.store(sequence, 0, -(2 ** 31) + 1);
    expect(new SharedRefusal(buffer).read()).toBeUndefined();
  });

  it('never hands a reader on another thread a refusal written half: every read is one the writer published', async () => {
    const buffer = SharedRefusal.buffer();
    // Word 0: the writer's writes so far; word 1: set to stop it.
    const control = new Int32Array(new SharedArrayBuffer(8));
    const module = new URL('../../dist/queue/shared-refusal.js', import.meta.url).href;
    const errors = new URL('../../dist/errors/spanscore-error.js', import.meta.url).href;
    // The writer cycles through three states, each message one letter repeated, until stopped.
    const worker = new Worker(
      `
const { workerData } = require('node:worker_threads');
(async () => {
  const { SharedRefusal } = await import(${JSON.stringify(module)});
  const { SpanscoreError } = await import(${JSON.stringify(errors)});
  const writer = new SharedRefusal(workerData.buffer);
  const control = new Int32Array(workerData.control);
  const states = [
    new SpanscoreError('SS_INGEST_SATURATED', 'A'.repeat(300), { retryAfterSeconds: 1 }),
    undefined,
    new SpanscoreError('SS_INGEST_UNAVAILABLE', 'B'.repeat(40), { retryAfterSeconds: 5 }),
  ];
  for (let i = 0; Atomics.load(control, 1) === 0; i++) {
    writer.publish(states[i % 3]);
    Atomics.add(control, 0, 1);
  }
})();
`,
      { eval: true, workerData: { buffer, control: control.buffer } },
    );
    const failed = new Promise<never>((_, reject) => worker.once('error', reject));
    const reader = new SharedRefusal(buffer);
    const seen = { none: 0, saturated: 0, unavailable: 0, torn: 0 };
    const kindOf = (r: SpanscoreError | undefined): keyof typeof seen => {
      if (r === undefined) return 'none';
      if (
        r.code === 'SS_INGEST_SATURATED' &&
        r.message === 'A'.repeat(300) &&
        r.retryAfterSeconds === 1
      )
        return 'saturated';
      if (
        r.code === 'SS_INGEST_UNAVAILABLE' &&
        r.message === 'B'.repeat(40) &&
        r.retryAfterSeconds === 5
      )
        return 'unavailable';
      return 'torn';
    };
    // Reads until 20,000 writes happened while reading and the reads saw the state change 200
    // times (so reads and writes interleaved, however the threads were scheduled): counts, not
    // a time.
    let reads = 0;
    let changes = 0;
    let last: keyof typeof seen | undefined;
    let from = -1;
    while (from < 0 || Atomics.load(control, 0) - from < 20_000 || changes < 200) {
      if (from < 0 && Atomics.load(control, 0) > 0) from = Atomics.load(control, 0);
      reads++;
      const kind = kindOf(reader.read());
      seen[kind]++;
      if (last !== undefined && kind !== last) changes++;
      last = kind;
      // A writer that failed fails the test, not the run.
      if (reads % 1_000_000 === 0) await Promise.race([failed, Promise.resolve()]);
      if (reads > 500_000_000)
        throw new Error(
          `${Atomics.load(control, 0)} writes, ${changes} changes seen in ${reads} reads`,
        );
    }
    Atomics.store(control, 1, 1);
    await worker.terminate();
    expect(seen.torn).toBe(0);
    expect(changes).toBeGreaterThanOrEqual(200);
  });
});
