import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SpanscoreError } from '../errors/spanscore-error.js';
import { childSpans } from '../../test/helpers/child-spans.js';
import { ASSEMBLY_LIMITS, ASSEMBLY_POLICY } from '../../test/helpers/memory-assembler.js';
import { traceId } from '../../test/helpers/otlp-json-builder.js';
import { createMemoryTraceAssembler } from './memory-trace-assembler.js';

// The memory trace assembler's retries, and the export of scored traces outside the scoring slot.

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('memory trace assembler: retries and deliveries', () => {
  it('retries a retryable failure with exponential backoff, and gives up at once on others', async () => {
    let calls = 0;
    const failed: string[] = [];
    const assembler = createMemoryTraceAssembler({
      ...ASSEMBLY_LIMITS,
      policy: ASSEMBLY_POLICY,
      backoffMs: 1000,
      onFailed: id => failed.push(id),
      process: id => {
        calls++;
        if (id === traceId(9) && calls <= 2)
          return Promise.reject(new SpanscoreError('SS_EXPORT_FAILED', 'backend down'));
        if (id === traceId(10)) return Promise.reject(new TypeError('a bug'));
        return Promise.resolve();
      },
    });
    await assembler.accept(childSpans(9, ['root']));
    await vi.advanceTimersByTimeAsync(2000); // first attempt fails
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(1000); // retry after 1 s fails
    expect(calls).toBe(2);
    await vi.advanceTimersByTimeAsync(1999);
    expect(calls).toBe(2);
    await vi.advanceTimersByTimeAsync(1); // then after 2 s succeeds
    expect(assembler.stats()).toMatchObject({ scored: 1, retries: 2, failed: 0 });

    await assembler.accept(childSpans(10, ['root']));
    await vi.advanceTimersByTimeAsync(2000);
    expect(failed).toEqual([traceId(10)]);
    expect(assembler.stats()).toMatchObject({ scored: 1, failed: 1 });
  });

  it('delivers outside the scoring slot: a trace waiting on its export holds no other up, nor its spans', async () => {
    const scored: string[] = [];
    let releaseExport!: () => void;
    const exportDone = new Promise<void>(resolve => (releaseExport = resolve));
    const assembler = createMemoryTraceAssembler({
      ...ASSEMBLY_LIMITS,
      policy: ASSEMBLY_POLICY,
      concurrency: 1,
      process: id => {
        scored.push(id);
        // Every trace's export waits until the backend answers.
        return Promise.resolve(() => exportDone);
      },
    });
    for (let t = 30; t < 34; t++) await assembler.accept(childSpans(t, ['root']));
    await vi.advanceTimersByTimeAsync(2000 + 10);
    // With one slot, all four were scored while the first export still waited.
    expect(scored).toEqual([traceId(30), traceId(31), traceId(32), traceId(33)]);
    // Their source spans are released once scored: what waits is the delivery alone.
    expect(assembler.stats()).toMatchObject({ scored: 0, heldSpans: 0, waitingDeliveries: 4 });
    releaseExport();
    await vi.advanceTimersByTimeAsync(1);
    expect(assembler.stats()).toMatchObject({ scored: 4, heldSpans: 0, waitingDeliveries: 0 });
  });

  it('retries a delivery that failed to export on its own, without scoring again', async () => {
    let scorings = 0;
    let deliveries = 0;
    const assembler = createMemoryTraceAssembler({
      ...ASSEMBLY_LIMITS,
      policy: ASSEMBLY_POLICY,
      backoffMs: 100,
      process: () => {
        scorings++;
        return Promise.resolve(() =>
          ++deliveries === 1
            ? Promise.reject(new SpanscoreError('SS_EXPORT_FAILED', 'backend down'))
            : Promise.resolve(),
        );
      },
    });
    await assembler.accept(childSpans(35, ['root']));
    await vi.advanceTimersByTimeAsync(2000 + 100 + 10);
    expect([scorings, deliveries]).toEqual([1, 2]);
    expect(assembler.stats()).toMatchObject({ scored: 1, failed: 0, retries: 1 });
  });

  it('an export outage never blocks ingest: spans of traces waiting on it are not held', async () => {
    const assembler = createMemoryTraceAssembler({
      ...ASSEMBLY_LIMITS,
      policy: ASSEMBLY_POLICY,
      maxBufferedSpans: 3,
      process: () =>
        Promise.resolve(() =>
          Promise.reject(new SpanscoreError('SS_EXPORT_FAILED', 'backend down')),
        ),
      exportRetry: { maxAgeMs: 3_600_000, maxBackoffMs: 60_000 },
    });
    for (let t = 40; t < 46; t++) {
      await assembler.accept(childSpans(t, ['root', 'tool']));
      await vi.advanceTimersByTimeAsync(2010);
    }
    expect(assembler.stats()).toMatchObject({ heldSpans: 0, waitingDeliveries: 6, failed: 0 });
  });

  it('past maxWaitingDeliveries, a scored trace is not delivered and ends failed with the reason', async () => {
    const failures: string[] = [];
    const assembler = createMemoryTraceAssembler({
      ...ASSEMBLY_LIMITS,
      policy: ASSEMBLY_POLICY,
      maxWaitingDeliveries: 2,
      process: () => Promise.resolve(() => new Promise<void>(() => {})), // the backend never answers
      onFailed: (_id, error) => failures.push((error as Error).message),
    });
    for (let t = 50; t < 53; t++) await assembler.accept(childSpans(t, ['root']));
    await vi.advanceTimersByTimeAsync(2010);
    expect(assembler.stats()).toMatchObject({ waitingDeliveries: 2, failed: 1 });
    expect(failures).toEqual([
      'not exported: 2 scored traces already wait for the tracing backend (at most 2)',
    ]);
  });
});
